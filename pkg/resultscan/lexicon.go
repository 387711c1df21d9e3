package resultscan

import (
	"strings"
	"unicode/utf8"
)

// role is what a word can contribute to a directive. A word has one or
// more roles; a sentence is judged on the roles its words bring together,
// whatever their order, so that one set of rules reads every language.
type role uint64

const (
	rAddr     role = 1 << iota // the reader as a machine: AI, assistant, LLM, agent
	rYou                       // the second person
	rOverride                  // ignore, disregard, forget, override
	rRules                     // instructions, prompt, rules, guidelines
	rPrior                     // previous, above, earlier, all
	rNeg                       // not, never, without
	rTell                      // tell, mention, reveal, inform
	rUser                      // the user, the human
	rAct                       // a verb that does something: call, run, delete, send, read
	rSend                      // a verb that moves data elsewhere: send, forward, upload, post
	rRead                      // a verb that reads or shows: read, open, print, display
	rUrgent                    // must, immediately, now, required, always, first
	rSecret                    // passwords, credentials, tokens, keys, environment variables
	rConvo                     // the conversation, chat history, system prompt, context
	rTool                      // tool, function, command
	rAuth                      // authority: system, administrator, developer, security team
	rMemory                    // remember, memory, from now on, future sessions
	rMention                   // talk about attacks: example, attack, injection, payload
	rPlease                    // please
	rDecode                    // decode, base64, decrypt
	rURL                       // url, link, image, query, parameter
	rAppend                    // append, include, embed, attach, insert
	rVoc                       // words that open an address: dear, attention, note, hey
	rModal                     // should, need to, have to, are required
	rFollow                    // follow, obey, comply, execute (an order, not a tool)
	rDeictic                   // this, here, now, today: the text points at itself
	rVoid                      // superseded, no longer valid, cancelled: of earlier rules
	rVerb                      // any verb that can open an imperative
	rMachine                   // automated, reviewer, summariser: what a machine reader is called
	rPermit                    // can, may: a permission, not an order
	rTask                      // task, objective, goal: what the reader is set to do
	rTold                      // told, given, instructed: what the reader was told before
	rAll                       // all, any, every: a quantifier, weaker than "previous"
)

// lexicon maps each word, lower-cased, to its roles. Words of languages
// written with spaces are looked up whole; inflected forms are listed.
// The phrases of languages written without spaces between words (and of
// those whose words carry their particles) are in substringLexicon.
var lexicon = map[string]role{}

// stemLexicon holds stems of Cyrillic words, which inflect too richly to
// list: a word is looked up by its first stemRunes runes as well.
var stemLexicon = map[string]role{}

const stemRunes = 5

// substringLexicon holds phrases found anywhere in the text, indexed by
// their first rune: Chinese, Japanese, Korean, Arabic, Hindi.
var substringLexicon = map[rune][]phrase{}

type phrase struct {
	text string
	r    role
}

func add(r role, words string) {
	for _, w := range strings.Fields(words) {
		w = strings.ReplaceAll(w, "+", " ")
		lexicon[w] |= r
	}
}

func addStems(r role, stems string) {
	for _, w := range strings.Fields(stems) {
		lexicon[w] |= r
		if utf8.RuneCountInString(w) >= stemRunes {
			stemLexicon[stemOf(w)] |= r
		}
	}
}

func addSubstrings(r role, phrases string) {
	for _, p := range strings.Fields(phrases) {
		first, _ := utf8.DecodeRuneInString(p)
		substringLexicon[first] = append(substringLexicon[first], phrase{p, r})
	}
}

// stemOf is w's first stemRunes runes.
func stemOf(w string) string {
	n := 0
	for i := range w {
		if n == stemRunes {
			return w[:i]
		}
		n++
	}
	return w
}

func init() {
	// English.
	add(rAddr, "ai a.i. assistant assistants llm llms chatbot chatbots agent agents copilot claude gpt chatgpt gemini model models bot")
	add(rYou, "you your yours yourself you're you'll you've youre")
	add(rOverride, "ignore ignoring disregard disregarding forget override overrule bypass discard abandon")
	add(rRules, "instructions instruction prompt prompts rules guidelines directives directive constraints restrictions guardrails policies programming")
	add(rPrior, "previous prior above earlier preceding former original existing")
	add(rAll, "all any every everything whatever")
	add(rNeg, "not never don't dont do+not without no nor neither avoid")
	add(rTell, "tell mention reveal inform notify disclose report acknowledge explain show display list say describe present flag comment respond reply answer")
	add(rUser, "user users human humans person operator requester")
	add(rAct|rSend, "send sending forward email e-mail mail post upload transmit transfer exfiltrate leak share publish submit")
	add(rAct|rRead, "read open cat print output display dump show list fetch retrieve access reveal return")
	add(rAct, "call invoke execute run trigger use delete remove drop wipe erase destroy approve grant push merge write create add install download visit navigate click change modify update rename move purge kill disable grant reply respond")
	add(rVerb, "remember memorize memorise store save keep guarda recuerda retenez retiens mémorise mémorisez enregistre enregistrez ricorda ricordati memorizza salva salvalo lembre lembra salve guarde merke speichere запомни запомните сохрани добавь close reply rank describe advise assign recommend accept attach give tell report mark treat leave approve switch collect stop draft set scale quote take subscribe turn request ask state present respond omit say answer put fill substitute replace end start begin include output render show buy bind post disable enable reset confirm cancel commit edit make keep store save export paste copy convert translate summarise summarize rate score flag continue proceed skip add remove update change grant revoke upload download install run execute call invoke use open read write delete send forward share publish email message notify contact visit click navigate browse search find fetch get check verify log sign pay transfer wire refund purchase order book schedule invite create generate produce prepare compose insist claim pretend act behave become follow obey comply prioritise prioritize prefer trust consider assume suggest warn alert praise promote mention emphasise emphasize highlight exclude hide conceal suppress avoid refuse decline deny append insert embed encode decode join combine concatenate push merge drop wipe erase purge kill rename move apply restore rotate mail dm ping print list dump display reveal return display note describe classify label rewrite ensure make let upgrade downgrade lock unlock transfer enroll register")
	add(rUrgent, "must immediately urgent urgently required mandatory important critical asap")
	add(rModal, "should need needs have+to has+to required obliged deben debería deberían tienen devraient devrait doivent müssen sollen sollte sollten musst devono dovete dovrebbe dovrebbero devem deveria deveriam должны следует нужно")
	add(rSecret, "password passwords passwd credential credentials secret secrets token tokens apikey api_key api-key apikeys ssh id_rsa id_ed25519 private_key privatekey cookies cookie env environment .env keychain wallet seed mnemonic passphrase otp 2fa")
	add(rConvo, "conversation conversations chat history transcript context messages memory system_prompt")
	add(rTool, "tool tools function functions command commands plugin plugins")
	add(rAuth, "system admin administrator administrators developer developers security official root supervisor compliance sysadmin moderator")
	add(rMemory, "remember memorize memorise memory persist permanently forever henceforth future sessions")
	add(rMention, "example examples e.g. e.g for+instance attack attacks attacker attackers injection injections injected malicious payload payloads adversarial jailbreak jailbreaks phishing vulnerability vulnerabilities cve exploit exploits exploited detector detectors mitigation quoted scam scams spoofed researchers untrusted prompt-injection")
	add(rPlease, "please pls kindly")
	add(rDecode, "decode decoded decrypt decipher base64 rot13 hex deobfuscate unscramble")
	add(rURL, "url urls link links image img query parameter parameters webhook endpoint")
	add(rAppend, "append include embed attach insert encode concatenate add")
	add(rVoc, "dear attention note hey hello hi to for if btw whatever any all every")
	add(rDeictic, "this these here now today immediately tonight hereby")
	add(rVoid, "levées levés levée levé levantadas levantados revocate revocati suspensas suspended suspendues suspendidas suspensas sospese sospeso ausgesetzt приостановлены superseded supersedes invalid void cancelled canceled irrelevant lifted discarded obsolete revoked overridden draft nichtig ungültig hinfällig aufgehoben nulle nulles caduc caduques annulées annulé anulado anuladas inválidas nulas anulada annullate annullato nulle недействительны отменены отменено отменяются")
	add(rTask, "pedido petición demande richiesta anfrage запрос task tasks objective objectives goal goals mission aufgabe ziel tarea objetivo tâche objectif compito obiettivo tarefa задача цель")
	add(rTold, "told given asked received instructed")
	add(rMachine, "automated automatic reviewer reviewers summariser summarisers summarizer summarizers screener operator operators processor crawler crawlers scraper reader readers editors editor clients client")
	add(rPermit, "can may could might optionally optional would pode poderia podes puede podría puedes peux pouvez pourrais pourriez kannst könntest können könnten puoi potresti può potrebbe можешь можете могли")
	add(rDecode, "hexadécimal hexadecimal hexadezimal раскодировать раскодируй декодировать backwards reversed reverse rot-13 caesar cipher deciphered dekodieren dekodiere entschlüsseln rückwärts hex descodifícalo descodifica decodifica decodifícalo decodificar décode décodez décoder l'envers decodificate decodificalo decodificare декодируй расшифруй")
	add(rFollow, "exécuter suivre appliquer eseguire eseguitela seguire applicare ejecutar seguir aplicar выполнить выполните следовать befolgen befolge ausführen führe síguelo sigue siga ejecútalo ejecuta aplícalo aplica suivez suis exécutez exécute appliquez applique eseguite esegui eseguilo seguite segui applicalo applica выполни выполните следуй примени")
	add(rFollow, "follow obey comply execute carry perform")

	// Spanish.
	add(rDeictic, "este esta esto estos estas aquí ahora hoy")
	add(rVoc, "para querido querida hola atención nota")
	add(rAddr, "ia asistente asistentes modelo agente agentes")
	add(rYou, "tú tu tus usted ustedes te debes puedes")
	add(rOverride, "ignora ignore ignorar ignoren olvida olvide olvidar descarta descarte omite")
	add(rRules, "instrucciones instrucción indicaciones reglas órdenes directrices prompt")
	add(rPrior, "anteriores anterior previas previos")
	add(rAll, "todas todos cualquier todo")
	add(rNeg, "no nunca sin jamás")
	add(rTell, "digas diga decir menciones mencione informes informe reveles revele avises avise cuentes")
	add(rUser, "usuario usuaria usuarios nadie")
	add(rAct|rSend, "envía envia envíe enviar reenvía reenvia manda mande sube comparte")
	add(rAct|rRead, "lee lea leer abre abra muestra muestre imprime")
	add(rAct, "llama llame ejecuta ejecute usa use utiliza borra borre elimina elimine")
	add(rUrgent, "debes debe inmediatamente ahora urgente obligatorio importante siempre primero")
	add(rSecret, "contraseña contraseñas contrasena credenciales clave claves secretos tokens entorno")
	add(rConvo, "conversación conversacion historial mensajes chat")
	add(rTool, "herramienta herramientas función funcion comando")
	add(rAuth, "sistema administrador desarrollador seguridad oficial")
	add(rMemory, "recuerda recuerde memoria futuras guarda guárdalo")
	add(rMention, "ejemplo ataque ataques atacante inyección inyeccion malicioso")
	add(rPlease, "favor")
	add(rAppend, "incluye incluya añade agrega adjunta")

	// French.
	add(rDeictic, "ce cet cette ces ici maintenant aujourd'hui")
	add(rVoc, "pour cher chère bonjour attention note aux à")
	add(rPlease, "veuillez svp")
	add(rAddr, "ia assistant assistante assistants modèle agent agents")
	add(rYou, "tu vous toi votre ton tes vos")
	add(rOverride, "ignore ignorez ignorer oublie oubliez oublier")
	add(rRules, "instructions consignes règles directives prompt")
	add(rPrior, "précédentes précédents précédente antérieures")
	add(rAll, "toutes tous tout")
	add(rNeg, "ne pas jamais sans n'informe n'informez")
	add(rTell, "dis dites informe informez mentionne mentionnez révèle révélez préviens prévenez")
	add(rUser, "utilisateur utilisatrice utilisateurs personne")
	add(rAct|rSend, "envoie envoyez envoyer transfère transférez partage partagez")
	add(rAct|rRead, "lis lisez lire ouvre ouvrez affiche affichez imprime")
	add(rAct, "appelle appelez exécute exécutez utilise utilisez supprime supprimez efface")
	add(rUrgent, "dois devez doit doivent immédiatement maintenant urgent obligatoire important toujours d'abord")
	add(rSecret, "passe identifiants clé clés secrets jetons environnement")
	add(rConvo, "conversation historique messages discussion")
	add(rTool, "outil outils fonction commande")
	add(rAuth, "système administrateur développeur sécurité officiel")
	add(rMemory, "souviens souvenez mémoire mémorise mémorisez retiens futures désormais enregistre")
	add(rMention, "exemple attaque attaques attaquant injection malveillant")
	add(rAppend, "inclus incluez ajoute ajoutez joins")

	// German.
	add(rDeictic, "diese dieser dieses diesen diesem hier jetzt heute sofort")
	add(rVoc, "für an liebe lieber hallo hinweis achtung")
	add(rAddr, "ki assistent assistenten assistentin sprachmodell modell agent agenten betriebsagent")
	add(rYou, "du dich dir dein deine deinem deinen deiner deines sie ihr ihre euer eure")
	add(rOverride, "ignoriere ignorieren ignoriert vergiss vergessen missachte")
	add(rRules, "anweisungen anweisung instruktionen regeln richtlinien vorgaben prompt")
	add(rPrior, "vorherigen vorherige bisherigen obigen früheren frühere früher ursprüngliche ursprünglichen")
	add(rAll, "alle allen alles")
	add(rNeg, "nicht nie niemals ohne kein keine")
	add(rTell, "sag sage sagen erwähne erwähnen informiere informieren verrate verraten")
	add(rUser, "benutzer nutzer benutzerin anwender niemandem")
	add(rAct|rSend, "sende senden schicke schicken leite übermittle übermitteln teile lade")
	add(rAct|rRead, "lies lese lesen öffne öffnen zeige zeigen gib drucke")
	add(rAct, "rufe rufen führe führen nutze nutzen verwende verwenden lösche löschen entferne")
	add(rUrgent, "musst müssen muss sofort jetzt dringend unbedingt wichtig immer zuerst")
	add(rSecret, "passwort passwörter kennwort zugangsdaten schlüssel geheimnisse token umgebungsvariablen")
	add(rConvo, "gespräch unterhaltung verlauf nachrichten chatverlauf")
	add(rTool, "werkzeug werkzeuge funktion befehl tool")
	add(rAuth, "system administrator entwickler sicherheit offiziell")
	add(rMemory, "merke merk speichere gedächtnis zukünftig künftig")
	add(rMention, "beispiel angriff angriffe angreifer injektion bösartig")
	add(rPlease, "bitte")
	add(rAppend, "füge hänge einbetten")

	// Portuguese.
	add(rDeictic, "este esta isto aqui agora hoje desta deste nesta neste")
	add(rVoc, "para caro cara olá atenção nota")
	add(rAddr, "ia assistente assistentes modelo agente agentes")
	add(rYou, "você voce vocês tu teu sua seu")
	add(rOverride, "ignore ignora ignorar esqueça esqueca esquece desconsidere")
	add(rRules, "instruções instrucoes regras diretrizes ordens")
	add(rPrior, "anteriores anterior")
	add(rAll, "todas todos tudo")
	add(rNeg, "não nao nunca sem")
	add(rTell, "diga conte mencione informe revele avise")
	add(rUser, "usuário usuario utilizador ninguém ninguem")
	add(rAct|rSend, "envie enviar encaminhe compartilhe")
	add(rAct|rRead, "leia ler abra mostre imprima")
	add(rAct, "chame execute use utilize apague exclua remova")
	add(rUrgent, "deve imediatamente agora urgente obrigatório importante sempre primeiro")
	add(rSecret, "senha senhas credenciais chave chaves segredos ambiente")
	add(rConvo, "conversa histórico historico mensagens")
	add(rTool, "ferramenta ferramentas função funcao comando")
	add(rMemory, "lembre lembra memória memoria futuras salve guarde")
	add(rMention, "exemplo ataque ataques atacante injeção injecao malicioso")
	add(rAppend, "inclua adicione anexe")

	// Italian.
	add(rDeictic, "questo questa questi qui ora oggi")
	add(rVoc, "per caro cara ciao attenzione nota")
	add(rAddr, "ia assistente assistenti modello agente agenti")
	add(rPlease, "prego")
	add(rYou, "tu voi tuo tua tuoi lei")
	add(rOverride, "ignora ignorare dimentica dimenticare trascura")
	add(rRules, "istruzioni regole direttive indicazioni")
	add(rPrior, "precedenti precedente")
	add(rAll, "tutte tutti tutto")
	add(rNeg, "non mai senza")
	add(rTell, "dire dirlo menzionare informare rivelare avvisare dica menzioni")
	add(rUser, "utente utenti nessuno")
	add(rAct|rSend, "invia inviare inoltra condividi carica")
	add(rAct|rRead, "leggi leggere apri mostra stampa")
	add(rAct, "chiama esegui usa utilizza elimina cancella rimuovi")
	add(rUrgent, "devi deve immediatamente subito ora urgente obbligatorio importante sempre prima")
	add(rSecret, "password credenziali chiave chiavi segreti ambiente")
	add(rConvo, "conversazione cronologia messaggi")
	add(rTool, "strumento strumenti funzione comando")
	add(rMemory, "ricorda ricordati memoria memorizza future")
	add(rMention, "esempio attacco attacchi attaccante iniezione malevolo")
	add(rAppend, "includi aggiungi allega")

	// Russian: stems, since the words inflect.
	addStems(rAddr, "ии ассистент ассистенту ассистента помощник модель нейросеть агент агенту агентам агенты")
	addStems(rDeictic, "этот эту это эти здесь сейчас сегодня")
	addStems(rVoc, "для обращаюсь внимание")
	addStems(rYou, "ты вы тебе вам твой ваш тебя вас")
	addStems(rOverride, "игнорируй игнорируйте проигнорируй забудь забудьте отбрось")
	addStems(rRules, "инструкции инструкций указания правила промпт")
	addStems(rPrior, "предыдущие предыдущих прежние")
	addStems(rAll, "все всех всё")
	addStems(rNeg, "не никогда без")
	addStems(rTell, "говори сообщай упоминай рассказывай сообщать")
	addStems(rUser, "пользователю пользователь пользователя никому")
	addStems(rAct|rSend, "отправь отправьте перешли пересылай загрузи")
	addStems(rAct|rRead, "прочитай прочти открой покажи выведи")
	addStems(rAct, "вызови выполни используй удали запусти")
	addStems(rUrgent, "должен должны немедленно сейчас срочно обязательно важно всегда сначала")
	addStems(rSecret, "пароль пароли учётные учетные ключи ключ секреты токен окружения")
	addStems(rConvo, "разговор переписку историю сообщения")
	addStems(rTool, "инструмент функцию команду")
	addStems(rAuth, "система системное администратор разработчик безопасности")
	addStems(rMemory, "запомни запомните памяти память сохрани будущих")
	// Exact words: a stem of "пример" is also one of "примечание" (a note).
	add(rMention, "пример примеры например примера атака атаки атаку атакующий атакующие инъекция инъекции инъекцию вредоносный вредоносные вредоносная злоумышленник злоумышленники злоумышленника уязвимость уязвимости")
	addStems(rPlease, "пожалуйста")

	// Written without spaces, or with particles on the word: phrases.
	// Chinese.
	addSubstrings(rAddr, "人工智能 AI助手 助手 智能体 模型 大模型 代理")
	addSubstrings(rVoc, "致 给")
	addSubstrings(rModal, "需要 需 应该 应当")
	addSubstrings(rAppend, "附上 附加 加上")
	addSubstrings(rNeg, "不要 别 勿")
	addSubstrings(rTell, "提到 提及 告诉 透露 说")
	addSubstrings(rDecode, "解码 解密 倒过来")
	addSubstrings(rFollow, "执行 照做 遵照")
	addSubstrings(rPermit, "可以 能够")
	addSubstrings(rDeictic, "这 此 现在 今天")
	addSubstrings(rYou, "你 您")
	addSubstrings(rOverride, "忽略 无视 忘记 忘掉 不要理会 覆盖")
	addSubstrings(rRules, "指令 指示 规则 提示词 说明")
	addSubstrings(rPrior, "之前 先前 以上 上述")
	addSubstrings(rAll, "所有 全部")
	addSubstrings(rNeg|rTell, "不要告诉 不要提及 不要透露 不要通知 别告诉 切勿告诉")
	addSubstrings(rUser, "用户 使用者")
	addSubstrings(rAct|rSend, "发送 发到 转发 上传 发给")
	addSubstrings(rAct|rRead, "读取 打开 显示 输出 打印")
	addSubstrings(rAct, "调用 执行 运行 删除 使用")
	addSubstrings(rUrgent, "必须 立即 马上 立刻 务必 重要")
	addSubstrings(rSecret, "密码 凭证 凭据 密钥 令牌 环境变量 私钥")
	addSubstrings(rConvo, "对话 聊天记录 历史记录 系统提示")
	addSubstrings(rTool, "工具 函数 命令")
	addSubstrings(rAuth, "系统 管理员 开发者 安全团队")
	addSubstrings(rMemory, "记住 永久 以后 记忆 长期")
	addSubstrings(rVoid, "作废 无效 不再适用 取消")
	addSubstrings(rTask, "任务 目标")
	addSubstrings(rMention, "例如 攻击 注入 恶意 示例 研究人员 钓鱼 隐藏文字")
	addSubstrings(rPlease, "请")
	// Japanese.
	addSubstrings(rAddr, "アシスタント エージェント モデル")
	addSubstrings(rVoc, "へ")
	addSubstrings(rPlease, "してください ください すること しないで")
	addSubstrings(rDecode, "デコード 復号 逆から")
	addSubstrings(rFollow, "従って 従う 実行して 実行する")
	addSubstrings(rPermit, "できます")
	addSubstrings(rDeictic, "この これ 今 本日")
	addSubstrings(rYou, "あなた")
	addSubstrings(rOverride, "無視 忘れ")
	addSubstrings(rRules, "指示 命令 ルール プロンプト")
	addSubstrings(rPrior, "以前の これまでの 前の")
	addSubstrings(rAll, "すべての")
	addSubstrings(rNeg|rTell, "伝えないで 言わないで 知らせないで 教えないで 報告しないで")
	addSubstrings(rUser, "ユーザー 利用者")
	addSubstrings(rAct|rSend, "送信 送って 転送 アップロード")
	addSubstrings(rAct|rRead, "読み取 読んで 開いて 表示 出力")
	addSubstrings(rAct, "呼び出 実行 削除 使用して")
	addSubstrings(rUrgent, "必ず 直ちに すぐに 今すぐ 重要")
	addSubstrings(rSecret, "パスワード 認証情報 秘密鍵 トークン 環境変数 APIキー")
	addSubstrings(rConvo, "会話 履歴 チャット システムプロンプト")
	addSubstrings(rTool, "ツール 関数 コマンド")
	addSubstrings(rAuth, "システム 管理者 開発者 セキュリティチーム")
	addSubstrings(rMemory, "覚えて 記憶 今後 保存して")
	addSubstrings(rVoid, "無効 取り消")
	addSubstrings(rTask, "タスク 目的 任務")
	addSubstrings(rMention, "例えば 攻撃 インジェクション 悪意 不可視の指示 フィッシング")
	addSubstrings(rPlease, "ください")
	// Korean.
	addSubstrings(rAddr, "인공지능 어시스턴트 비서 에이전트 모델")
	addSubstrings(rVoc, "에게 께")
	addSubstrings(rPlease, "세요 십시오 주세요 마세요 하라")
	addSubstrings(rDecode, "디코딩 디코드 복호화")
	addSubstrings(rFollow, "따르 실행하")
	addSubstrings(rPermit, "수 있")
	addSubstrings(rDeictic, "이 지금 오늘")
	addSubstrings(rYou, "당신 너는 너의")
	addSubstrings(rOverride, "무시 잊어")
	addSubstrings(rRules, "지시 지침 명령 규칙 프롬프트")
	addSubstrings(rPrior, "이전 위의")
	addSubstrings(rAll, "모든")
	addSubstrings(rNeg|rTell, "말하지 알리지 언급하지 공개하지")
	addSubstrings(rUser, "사용자 유저")
	addSubstrings(rAct|rSend, "보내 전송 전달 업로드")
	addSubstrings(rAct|rRead, "읽어 열어 표시 출력")
	addSubstrings(rAct, "호출 실행 삭제 사용하")
	addSubstrings(rUrgent, "반드시 즉시 지금 중요")
	addSubstrings(rSecret, "비밀번호 자격 증명 비밀 키 토큰 환경 변수")
	addSubstrings(rConvo, "대화 기록 채팅")
	addSubstrings(rTool, "도구 함수 명령어")
	addSubstrings(rAuth, "시스템 관리자 개발자 보안팀")
	addSubstrings(rMemory, "기억 장기 저장")
	addSubstrings(rVoid, "무효 취소")
	addSubstrings(rTask, "작업 목표 임무")
	addSubstrings(rMention, "예를 공격 인젝션 악성 가짜 피싱")
	// Arabic.
	addSubstrings(rAddr, "الذكاء المساعد النموذج الوكيل")
	addSubstrings(rVoc, "إلى الى")
	addSubstrings(rDecode, "فك")
	addSubstrings(rDeictic, "هذا هذه الآن اليوم")
	addSubstrings(rYou, "أنت انت عليك ردك لك إجابتك")
	addSubstrings(rOverride, "تجاهل انس")
	addSubstrings(rRules, "التعليمات تعليمات القواعد الأوامر")
	addSubstrings(rPrior, "السابقة")
	addSubstrings(rAll, "جميع كل")
	addSubstrings(rNeg, "لا دون")
	addSubstrings(rTell, "تخبر تذكر تبلغ تكشف")
	addSubstrings(rUser, "المستخدم")
	addSubstrings(rAct|rSend, "أرسل ارسل حول")
	addSubstrings(rAct|rRead, "اقرأ افتح اعرض اطبع")
	addSubstrings(rAct, "استدع نفذ شغل احذف استخدم")
	addSubstrings(rUrgent, "يجب فورا فوراً الآن مهم دائما")
	addSubstrings(rSecret, "كلمة المرور كلمات بيانات الاعتماد المفتاح مفاتيح الرموز متغيرات البيئة")
	addSubstrings(rConvo, "المحادثة سجل الرسائل")
	addSubstrings(rTool, "الأداة أداة الدالة الأمر")
	addSubstrings(rAuth, "النظام المسؤول المطور الأمن")
	addSubstrings(rMention, "مثال مثل هجوم حقن خبيث المهاجم")
	// Hindi.
	addSubstrings(rAddr, "सहायक मॉडल एजेंट एआई")
	addSubstrings(rDeictic, "यह इस अभी आज")
	addSubstrings(rYou, "आप तुम")
	addSubstrings(rOverride, "अनदेखा नज़रअंदाज़ नजरअंदाज भूल")
	addSubstrings(rRules, "निर्देश नियम")
	addSubstrings(rPrior, "पिछले")
	addSubstrings(rAll, "सभी")
	addSubstrings(rNeg, "मत न बिना")
	addSubstrings(rTell, "बताएं बताना बताओ सूचित")
	addSubstrings(rUser, "उपयोगकर्ता")
	addSubstrings(rAct|rSend, "भेजें भेजो भेज")
	addSubstrings(rAct|rRead, "पढ़ें पढ़ो खोलें दिखाएं")
	addSubstrings(rAct, "चलाएं हटाएं उपयोग")
	addSubstrings(rUrgent, "तुरंत अभी ज़रूरी जरूरी हमेशा")
	addSubstrings(rSecret, "पासवर्ड क्रेडेंशियल कुंजी टोकन")
	addSubstrings(rConvo, "बातचीत इतिहास")
	addSubstrings(rTool, "टूल फ़ंक्शन कमांड")
	addSubstrings(rAuth, "सिस्टम व्यवस्थापक डेवलपर")
}
