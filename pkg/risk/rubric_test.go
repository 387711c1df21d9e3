package risk

import "testing"

// rubricExamples are the labelling rubric's own examples, one row per
// example it gives for a field's value, each written as a realistic tool
// definition that names no product. The rubric is how reviewers label a
// tool; a rule that moves one of its examples off the value the rubric
// gives it is wrong whatever it gains elsewhere.
var rubricExamples = []struct {
	example string // the rubric's words
	field   string // category, riskLevel or blastRadius
	want    string
	def     string
	// gap, when set, is what the engine says today where it departs from
	// the rubric: the row asserts it, so that whoever closes the gap must
	// also move the row to the rubric's value.
	gap string
}{
	// category: read.
	{"get a resource", "category", "read", `{"name":"get_invoice","description":"Gets one invoice by its id.","inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string"}},"required":["invoice_id"]}}`, ""},
	{"list", "category", "read", `{"name":"list_projects","description":"Lists the projects the caller can see.","inputSchema":{"type":"object","properties":{"page":{"type":"integer"}}}}`, ""},
	{"search", "category", "read", `{"name":"search_tickets","description":"Searches tickets by text.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}`, ""},
	{"describe a resource", "category", "read", `{"name":"describe_instance","description":"Describes one virtual machine instance: its size, image and state.","inputSchema":{"type":"object","properties":{"instance_id":{"type":"string"}},"required":["instance_id"]}}`, ""},
	{"read a file", "category", "read", `{"name":"read_file","description":"Reads the contents of a file as text.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, ""},
	{"query with a read-only language", "category", "read", `{"name":"search_issues_by_query","description":"Finds issues matching a query in the tracker's read-only query language.","inputSchema":{"type":"object","properties":{"filter":{"type":"string","description":"The filter expression."}},"required":["filter"]}}`, ""},

	// category: observe.
	{"logs", "category", "observe", `{"name":"get_service_logs","description":"Gets the recent logs of one service.","inputSchema":{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}}`, ""},
	{"events", "category", "observe", `{"name":"list_events","description":"Lists the recent events of a namespace.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, ""},
	{"metrics", "category", "observe", `{"name":"get_metrics","description":"Gets CPU and memory metrics of a service.","inputSchema":{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}}`, ""},
	{"traces", "category", "observe", `{"name":"get_trace","description":"Gets one distributed trace by its id.","inputSchema":{"type":"object","properties":{"trace_id":{"type":"string"}},"required":["trace_id"]}}`, ""},
	{"health", "category", "observe", `{"name":"check_health","description":"Checks whether the service answers its health endpoint.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"status", "category", "observe", `{"name":"get_deployment_status","description":"Gets the rollout status of a deployment.","inputSchema":{"type":"object","properties":{"deployment":{"type":"string"}},"required":["deployment"]}}`, ""},
	{"watch", "category", "observe", `{"name":"watch_pods","description":"Watches the pods of a namespace and reports their changes.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, ""},
	{"diagnostics", "category", "observe", `{"name":"run_diagnostics","description":"Collects diagnostics of the connection to the server.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"screenshot of a page", "category", "observe", `{"name":"take_screenshot","description":"Takes a screenshot of the current page.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"console output", "category", "observe", `{"name":"get_console_messages","description":"Returns the console messages the page has printed.","inputSchema":{"type":"object","properties":{}}}`, ""},

	// category: mutate.
	{"create", "category", "mutate", `{"name":"create_issue","description":"Creates an issue in a project.","inputSchema":{"type":"object","properties":{"project":{"type":"string"},"title":{"type":"string"}},"required":["project","title"]}}`, ""},
	{"update", "category", "mutate", `{"name":"update_issue","description":"Updates the title or body of an issue.","inputSchema":{"type":"object","properties":{"issue_id":{"type":"string"},"title":{"type":"string"}},"required":["issue_id"]}}`, ""},
	{"patch", "category", "mutate", `{"name":"patch_resource","description":"Patches fields of one resource.","inputSchema":{"type":"object","properties":{"name":{"type":"string"},"patch":{"type":"object"}},"required":["name","patch"]}}`, ""},
	{"apply", "category", "mutate", `{"name":"apply_manifest","description":"Applies a manifest to the cluster, creating or updating its resources.","inputSchema":{"type":"object","properties":{"manifest":{"type":"string"}},"required":["manifest"]}}`, ""},
	{"scale", "category", "mutate", `{"name":"scale_deployment","description":"Scales a deployment to a number of replicas.","inputSchema":{"type":"object","properties":{"deployment":{"type":"string"},"replicas":{"type":"integer"}},"required":["deployment","replicas"]}}`, ""},
	{"restart", "category", "mutate", `{"name":"restart_service","description":"Restarts one service.","inputSchema":{"type":"object","properties":{"service":{"type":"string"}},"required":["service"]}}`, ""},
	{"send a message", "category", "mutate", `{"name":"send_message","description":"Sends a message to a channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}`, ""},
	{"send an email", "category", "mutate", `{"name":"send_email","description":"Sends an email to a recipient.","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]}}`, ""},
	{"post a comment", "category", "mutate", `{"name":"add_comment","description":"Posts a comment on an issue.","inputSchema":{"type":"object","properties":{"issue_id":{"type":"string"},"body":{"type":"string"}},"required":["issue_id","body"]}}`, ""},
	{"run a workflow or pipeline", "category", "mutate", `{"name":"run_pipeline","description":"Starts a run of a stored pipeline.","inputSchema":{"type":"object","properties":{"pipeline_id":{"type":"string"}},"required":["pipeline_id"]}}`, ""},
	{"execute arbitrary code", "category", "mutate", `{"name":"execute_code","description":"Executes the given Python code and returns its output.","inputSchema":{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}}`, ""},
	{"execute commands", "category", "mutate", `{"name":"run_command","description":"Runs a shell command on the host.","inputSchema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}`, ""},
	{"execute SQL", "category", "mutate", `{"name":"execute_sql","description":"Executes a SQL statement against the database.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}`, ""},
	{"browser click", "category", "mutate", `{"name":"browser_click","description":"Clicks an element on the page.","inputSchema":{"type":"object","properties":{"selector":{"type":"string"}},"required":["selector"]}}`, ""},
	{"browser type", "category", "mutate", `{"name":"browser_type","description":"Types text into an element on the page.","inputSchema":{"type":"object","properties":{"selector":{"type":"string"},"text":{"type":"string"}},"required":["selector","text"]}}`, ""},
	{"browser navigate", "category", "mutate", `{"name":"browser_navigate","description":"Navigates the page to a URL.","inputSchema":{"type":"object","properties":{"url":{"type":"string"}},"required":["url"]}}`, ""},
	{"writing files", "category", "mutate", `{"name":"write_file","description":"Writes content to a file, creating it if needed.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}`, ""},
	{"moving money", "category", "mutate", `{"name":"create_transfer","description":"Transfers funds from the balance to a connected account.","inputSchema":{"type":"object","properties":{"amount":{"type":"integer"},"destination":{"type":"string"}},"required":["amount","destination"]}}`, ""},

	// category: delete.
	{"delete a pod", "category", "delete", `{"name":"delete_pod","description":"Deletes one pod.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"},"name":{"type":"string"}},"required":["namespace","name"]}}`, ""},
	{"delete an issue", "category", "delete", `{"name":"delete_issue","description":"Deletes one issue by its number.","inputSchema":{"type":"object","properties":{"issue_number":{"type":"integer"}},"required":["issue_number"]}}`, ""},
	{"delete a file", "category", "delete", `{"name":"delete_file","description":"Deletes one file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, ""},
	{"delete a row", "category", "delete", `{"name":"delete_row","description":"Deletes one row of a table by its primary key.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"row_id":{"type":"string"}},"required":["table","row_id"]}}`, ""},
	{"delete a branch", "category", "delete", `{"name":"delete_branch","description":"Deletes a branch of a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"},"branch":{"type":"string"}},"required":["repo","branch"]}}`, ""},
	{"delete a DNS record", "category", "delete", `{"name":"delete_dns_record","description":"Deletes one DNS record of a zone.","inputSchema":{"type":"object","properties":{"zone_id":{"type":"string"},"record_id":{"type":"string"}},"required":["zone_id","record_id"]}}`, ""},
	{"delete a droplet", "category", "delete", `{"name":"delete_droplet","description":"Deletes one droplet (virtual machine).","inputSchema":{"type":"object","properties":{"droplet_id":{"type":"integer"}},"required":["droplet_id"]}}`, ""},

	// category: destroy.
	{"delete a namespace", "category", "destroy", `{"name":"delete_namespace","description":"Deletes a namespace and everything in it.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, ""},
	{"delete a cluster", "category", "destroy", `{"name":"delete_cluster","description":"Deletes a cluster.","inputSchema":{"type":"object","properties":{"cluster_id":{"type":"string"}},"required":["cluster_id"]}}`, ""},
	{"delete a project", "category", "destroy", `{"name":"delete_project","description":"Deletes a project with all its resources.","inputSchema":{"type":"object","properties":{"project_id":{"type":"string"}},"required":["project_id"]}}`, ""},
	{"delete a database", "category", "destroy", `{"name":"drop_database","description":"Drops a database and everything in it.","inputSchema":{"type":"object","properties":{"database":{"type":"string"}},"required":["database"]}}`, ""},
	{"delete a repository", "category", "destroy", `{"name":"delete_repository","description":"Deletes a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}}`, ""},
	{"delete a bucket with its contents", "category", "destroy", `{"name":"delete_bucket","description":"Deletes a storage bucket and the objects in it.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"},"force":{"type":"boolean"}},"required":["bucket"]}}`, ""},
	{"DROP a table", "category", "destroy", `{"name":"drop_table","description":"Drops a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}},"required":["table"]}}`, ""},
	{"delete all", "category", "destroy", `{"name":"delete_all_messages","description":"Deletes all messages of a channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"}},"required":["channel"]}}`, ""},
	{"cleanup of all managed resources", "category", "destroy", `{"name":"cleanup_resources","description":"Removes all managed resources the server created.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"uninstall a whole release", "category", "destroy", `{"name":"uninstall_release","description":"Uninstalls a release and every resource it installed.","inputSchema":{"type":"object","properties":{"release":{"type":"string"}},"required":["release"]}}`, ""},
	{"recursive directory removal", "category", "destroy", `{"name":"remove_directory","description":"Removes a directory.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}}`, ""},
	{"force-push that rewrites history", "category", "destroy", `{"name":"push_branch","description":"Pushes a branch to its remote.","inputSchema":{"type":"object","properties":{"branch":{"type":"string"},"force":{"type":"boolean","description":"Overwrite the remote history."}},"required":["branch"]}}`, ""},

	// category: utility.
	{"think", "category", "utility", `{"name":"think","description":"Records a thought to reason step by step; changes nothing.","inputSchema":{"type":"object","properties":{"thought":{"type":"string"}},"required":["thought"]}}`, ""},
	// A deliberate gap: a calculator's expression is judged code, since
	// many calculators hand it to their language's own eval, and a call
	// that reaches eval runs whatever the model wrote.
	{"calculate", "category", "utility", `{"name":"calculate","description":"Evaluates an arithmetic expression and returns the result.","inputSchema":{"type":"object","properties":{"expression":{"type":"string"}},"required":["expression"]}}`, "mutate"},
	{"format", "category", "utility", `{"name":"format_json","description":"Formats a JSON document with indentation.","inputSchema":{"type":"object","properties":{"json":{"type":"string"}},"required":["json"]}}`, ""},
	{"echo", "category", "utility", `{"name":"echo","description":"Echoes back the message it is given.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}},"required":["message"]}}`, ""},
	{"convert", "category", "utility", `{"name":"convert_units","description":"Converts a value from one unit to another.","inputSchema":{"type":"object","properties":{"value":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["value","from","to"]}}`, ""},

	// riskLevel: low.
	{"read of non-sensitive data", "riskLevel", "low", `{"name":"list_regions","description":"Lists the regions the service runs in.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"observe of non-sensitive data", "riskLevel", "low", `{"name":"get_cluster_health","description":"Reports whether the cluster's components are healthy.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"utility", "riskLevel", "low", `{"name":"convert_units","description":"Converts a value from one unit to another.","inputSchema":{"type":"object","properties":{"value":{"type":"number"},"from":{"type":"string"},"to":{"type":"string"}},"required":["value","from","to"]}}`, ""},

	// riskLevel: medium.
	{"create an issue", "riskLevel", "medium", `{"name":"create_issue","description":"Creates an issue in a project.","inputSchema":{"type":"object","properties":{"project":{"type":"string"},"title":{"type":"string"}},"required":["project","title"]}}`, ""},
	{"update a label", "riskLevel", "medium", `{"name":"update_label","description":"Updates the name or colour of a label.","inputSchema":{"type":"object","properties":{"label_id":{"type":"string"},"name":{"type":"string"},"color":{"type":"string"}},"required":["label_id"]}}`, ""},
	{"add a comment in a private tracker", "riskLevel", "medium", `{"name":"add_comment","description":"Adds a comment to an issue.","inputSchema":{"type":"object","properties":{"issue_id":{"type":"string"},"body":{"type":"string"}},"required":["issue_id","body"]}}`, ""},
	{"read private repos", "riskLevel", "medium", `{"name":"get_file_contents","description":"Gets the contents of a file in a repository, private repositories included.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"},"path":{"type":"string"}},"required":["repo","path"]}}`, ""},
	{"read customer records", "riskLevel", "medium", `{"name":"get_customer","description":"Gets one customer's record: name, email and address.","inputSchema":{"type":"object","properties":{"customer_id":{"type":"string"}},"required":["customer_id"]}}`, ""},
	{"read logs that may hold personal data", "riskLevel", "medium", `{"name":"get_request_logs","description":"Gets the request logs of an app, with the users and addresses of each request.","inputSchema":{"type":"object","properties":{"app":{"type":"string"}},"required":["app"]}}`, ""},

	// riskLevel: high.
	{"delete a specific item", "riskLevel", "high", `{"name":"delete_issue","description":"Deletes one issue by its number.","inputSchema":{"type":"object","properties":{"issue_number":{"type":"integer"}},"required":["issue_number"]}}`, ""},
	{"send email", "riskLevel", "high", `{"name":"send_email","description":"Sends an email to a recipient.","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"body":{"type":"string"}},"required":["to","body"]}}`, ""},
	{"send a public message", "riskLevel", "high", `{"name":"post_message","description":"Posts a message to a public channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}`, ""},
	{"publish", "riskLevel", "high", `{"name":"publish_package","description":"Publishes a package version to the registry.","inputSchema":{"type":"object","properties":{"package":{"type":"string"},"version":{"type":"string"}},"required":["package","version"]}}`, ""},
	{"merge", "riskLevel", "high", `{"name":"merge_pull_request","description":"Merges a pull request into its base branch.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"},"pull_number":{"type":"integer"}},"required":["repo","pull_number"]}}`, ""},
	{"deploy", "riskLevel", "high", `{"name":"deploy_service","description":"Deploys a new revision of a service.","inputSchema":{"type":"object","properties":{"service":{"type":"string"},"image":{"type":"string"}},"required":["service","image"]}}`, ""},
	{"charge a small amount", "riskLevel", "high", `{"name":"finalize_invoice","description":"Finalizes a draft invoice, which charges the customer's card on file.","inputSchema":{"type":"object","properties":{"invoice_id":{"type":"string"}},"required":["invoice_id"]}}`, ""},
	{"read secrets", "riskLevel", "high", `{"name":"read_secret","description":"Reads a secret's value from the store.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, ""},
	{"read credentials", "riskLevel", "high", `{"name":"get_database_credentials","description":"Returns the connection string with the user and password of a database.","inputSchema":{"type":"object","properties":{"database":{"type":"string"}},"required":["database"]}}`, ""},
	{"browser automation on a logged-in session", "riskLevel", "high", `{"name":"browser_click","description":"Clicks an element on the page.","inputSchema":{"type":"object","properties":{"selector":{"type":"string"}},"required":["selector"]}}`, ""},

	// riskLevel: critical.
	{"destroy a broad scope", "riskLevel", "critical", `{"name":"delete_namespace","description":"Deletes a namespace and everything in it.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, ""},
	{"execute arbitrary commands", "riskLevel", "critical", `{"name":"run_command","description":"Runs a shell command on the host.","inputSchema":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}}`, ""},
	{"execute arbitrary code", "riskLevel", "critical", `{"name":"execute_code","description":"Executes the given Python code and returns its output.","inputSchema":{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}}`, ""},
	{"execute arbitrary SQL", "riskLevel", "critical", `{"name":"execute_sql","description":"Executes a SQL statement against the database.","inputSchema":{"type":"object","properties":{"sql":{"type":"string"}},"required":["sql"]}}`, ""},
	{"execute shell", "riskLevel", "critical", `{"name":"shell","description":"Runs a script in a bash shell.","inputSchema":{"type":"object","properties":{"script":{"type":"string"}},"required":["script"]}}`, ""},
	{"change RBAC", "riskLevel", "critical", `{"name":"create_role_binding","description":"Binds a role to a user in a namespace.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"},"role":{"type":"string"},"user":{"type":"string"}},"required":["namespace","role","user"]}}`, ""},
	{"change IAM", "riskLevel", "critical", `{"name":"set_iam_policy","description":"Sets the IAM policy of a project.","inputSchema":{"type":"object","properties":{"project":{"type":"string"},"policy":{"type":"object"}},"required":["project","policy"]}}`, ""},
	{"create an API key", "riskLevel", "critical", `{"name":"create_api_key","description":"Creates a new API key for the account.","inputSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}`, ""},
	{"add an SSH key", "riskLevel", "critical", `{"name":"add_ssh_key","description":"Adds a public SSH key to the account.","inputSchema":{"type":"object","properties":{"title":{"type":"string"},"key":{"type":"string"}},"required":["key"]}}`, ""},
	{"add a collaborator", "riskLevel", "critical", `{"name":"add_collaborator","description":"Adds a collaborator to a repository with a permission level.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"},"username":{"type":"string"},"permission":{"type":"string"}},"required":["repo","username"]}}`, ""},
	{"move money", "riskLevel", "critical", `{"name":"create_transfer","description":"Transfers funds from the balance to a connected account.","inputSchema":{"type":"object","properties":{"amount":{"type":"integer"},"destination":{"type":"string"}},"required":["amount","destination"]}}`, ""},
	{"issue a refund", "riskLevel", "critical", `{"name":"create_refund","description":"Refunds a charge, in full or in part.","inputSchema":{"type":"object","properties":{"charge_id":{"type":"string"},"amount":{"type":"integer"}},"required":["charge_id"]}}`, ""},

	// blastRadius: item.
	{"one resource", "blastRadius", "item", `{"name":"get_instance","description":"Gets one virtual machine instance.","inputSchema":{"type":"object","properties":{"instance_id":{"type":"string"}},"required":["instance_id"]}}`, ""},
	{"one file", "blastRadius", "item", `{"name":"delete_file","description":"Deletes one file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}`, ""},
	{"one record", "blastRadius", "item", `{"name":"update_record","description":"Updates one record of a table by its id.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"record_id":{"type":"string"},"fields":{"type":"object"}},"required":["table","record_id","fields"]}}`, ""},
	{"one issue", "blastRadius", "item", `{"name":"close_issue","description":"Closes one issue.","inputSchema":{"type":"object","properties":{"issue_id":{"type":"string"}},"required":["issue_id"]}}`, ""},
	{"one message", "blastRadius", "item", `{"name":"edit_message","description":"Edits the text of one message.","inputSchema":{"type":"object","properties":{"message_id":{"type":"string"},"text":{"type":"string"}},"required":["message_id","text"]}}`, ""},

	// blastRadius: namespace.
	{"a Kubernetes namespace", "blastRadius", "namespace", `{"name":"delete_namespace","description":"Deletes a namespace and everything in it.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"}},"required":["namespace"]}}`, ""},
	{"a project", "blastRadius", "namespace", `{"name":"delete_project","description":"Deletes a project with all its resources.","inputSchema":{"type":"object","properties":{"project_id":{"type":"string"}},"required":["project_id"]}}`, ""},
	{"a repository", "blastRadius", "namespace", `{"name":"delete_repository","description":"Deletes a repository.","inputSchema":{"type":"object","properties":{"repo":{"type":"string"}},"required":["repo"]}}`, ""},
	{"a database", "blastRadius", "namespace", `{"name":"drop_database","description":"Drops a database and everything in it.","inputSchema":{"type":"object","properties":{"database":{"type":"string"}},"required":["database"]}}`, ""},
	{"a bucket", "blastRadius", "namespace", `{"name":"delete_bucket","description":"Deletes a storage bucket and the objects in it.","inputSchema":{"type":"object","properties":{"bucket":{"type":"string"},"force":{"type":"boolean"}},"required":["bucket"]}}`, ""},
	{"a channel", "blastRadius", "namespace", `{"name":"send_message","description":"Sends a message to a channel.","inputSchema":{"type":"object","properties":{"channel":{"type":"string"},"text":{"type":"string"}},"required":["channel","text"]}}`, ""},
	{"a directory tree", "blastRadius", "namespace", `{"name":"remove_directory","description":"Removes a directory.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"recursive":{"type":"boolean"}},"required":["path"]}}`, ""},

	// blastRadius: cluster.
	{"a whole cluster", "blastRadius", "cluster", `{"name":"upgrade_cluster","description":"Upgrades the control plane and nodes of a cluster to a version.","inputSchema":{"type":"object","properties":{"cluster_id":{"type":"string"},"version":{"type":"string"}},"required":["cluster_id","version"]}}`, ""},
	{"account-level infrastructure", "blastRadius", "cluster", `{"name":"update_account_settings","description":"Updates the account's default region and limits.","inputSchema":{"type":"object","properties":{"default_region":{"type":"string"}}}}`, ""},
	{"all namespaces", "blastRadius", "cluster", `{"name":"delete_pods","description":"Deletes the pods matching a label selector.","inputSchema":{"type":"object","properties":{"label_selector":{"type":"string"},"all_namespaces":{"type":"boolean"}},"required":["label_selector"]}}`, ""},
	{"a whole cloud account's resources of a kind", "blastRadius", "cluster", `{"name":"list_instances","description":"Lists every virtual machine instance of the account.","inputSchema":{"type":"object","properties":{}}}`, ""},
	{"list across all namespaces", "blastRadius", "cluster", `{"name":"list_pods","description":"Lists pods.","inputSchema":{"type":"object","properties":{"namespace":{"type":"string"},"all_namespaces":{"type":"boolean"}}}}`, ""},

	// blastRadius: organization.
	{"an org's members", "blastRadius", "organization", `{"name":"list_members","description":"Lists the members of the organization.","inputSchema":{"type":"object","properties":{"org":{"type":"string"}},"required":["org"]}}`, ""},
	{"org settings", "blastRadius", "organization", `{"name":"update_org_settings","description":"Updates the settings of an organization.","inputSchema":{"type":"object","properties":{"org":{"type":"string"},"settings":{"type":"object"}},"required":["org","settings"]}}`, ""},
	{"every repo of an org", "blastRadius", "organization", `{"name":"list_org_repositories","description":"Lists every repository of an organization.","inputSchema":{"type":"object","properties":{"org":{"type":"string"}},"required":["org"]}}`, ""},
	{"a whole workspace", "blastRadius", "organization", `{"name":"search_messages","description":"Searches messages across the whole workspace.","inputSchema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}`, ""},

	// blastRadius: global.
	{"public DNS", "blastRadius", "global", `{"name":"create_dns_record","description":"Creates a DNS record in a zone.","inputSchema":{"type":"object","properties":{"zone_id":{"type":"string"},"type":{"type":"string"},"name":{"type":"string"},"content":{"type":"string"}},"required":["zone_id","type","name","content"]}}`, ""},
	{"publishing a package", "blastRadius", "global", `{"name":"publish_package","description":"Publishes a package version to the registry.","inputSchema":{"type":"object","properties":{"package":{"type":"string"},"version":{"type":"string"}},"required":["package","version"]}}`, ""},
	{"public web posts", "blastRadius", "global", `{"name":"publish_post","description":"Publishes a post on the blog, visible to everyone.","inputSchema":{"type":"object","properties":{"title":{"type":"string"},"body":{"type":"string"}},"required":["title","body"]}}`, ""},
}

// TestRubricExamples holds the engine to every example the labelling
// rubric gives for a value of category, riskLevel and blastRadius.
func TestRubricExamples(t *testing.T) {
	for _, ex := range rubricExamples {
		name := ex.field + "/" + ex.want + "/" + ex.example
		if ex.gap != "" {
			name += "_gap"
		}
		t.Run(name, func(t *testing.T) {
			s := assess(t, ex.def).SEP
			got := map[string]string{"category": s.Category, "riskLevel": s.RiskLevel, "blastRadius": s.BlastRadius}[ex.field]
			switch {
			case ex.gap != "" && got != ex.gap:
				t.Errorf("%s %s: the known gap (%s, the rubric says %s) moved; update the row", ex.field, got, ex.gap, ex.want)
			case ex.gap == "" && got != ex.want:
				t.Errorf("%s %s, the rubric says %s (%s)", ex.field, got, ex.want, ex.def)
			}
		})
	}
}
