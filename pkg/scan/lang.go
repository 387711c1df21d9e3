package scan

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// Instructions in other languages. The intent rules read English; for the
// major other languages a small lexicon per language gives the same
// classes for the intents attacks use most: overriding earlier
// instructions (an "ignore" verb with an "instructions" noun), silence
// towards the user (a negated "tell" with "the user"), smuggling the
// conversation into a parameter (an "include" verb with "messages" or
// "history"), and reading a private file (a "read" verb with a sensitive
// path, which needs no translation). A sentence is reported when it holds
// both halves of one intent, whatever the order of the words, so the
// grammar of each language does not matter. Text in quotes is a mention
// (a translation tool's example), not an instruction, and is left out.

// langLex is one language's words for the halves of each intent, as lower
// case substrings (stems for inflected languages).
type langLex struct {
	script         langSet
	ignore, rules  []string // override
	negTell, user  []string // concealment
	include, convo []string // the conversation into a parameter
	read           []string // a read of a sensitive path
	before         []string // "before using this tool"
	secret         []string // passwords, API keys, card numbers, environment variables
	voids          []string // "no longer apply", "do not count": the rules-noun's other half
	// orders are the language's words for giving an order: "always",
	// "never", "you must", imperatives. Alone they are ordinary words; in
	// a sentence that switches to the language from English mid-text,
	// they are the part of the text a reviewer who reads the English
	// misses (see switchedOrder).
	orders []string
}

var langs = []langLex{
	{ // Spanish
		script: setLatin,
		ignore: []string{"ignora", "ignore", "olvida", "descarta", "omite"}, rules: []string{"instrucciones", "indicaciones", "reglas", "órdenes"},
		negTell: []string{"no le digas", "no digas", "no se lo digas", "no informes", "no menciones", "no le cuentes", "no reveles", "sin avisar", "sin informar", "sin decirle"}, user: []string{"usuario", "nadie"},
		include: []string{"incluye", "incluir", "añade", "agrega", "pon ", "envía", "envia", "pasa ", "adjunta", "copia"}, convo: []string{"mensajes", "conversación", "conversacion", "historial", "chat"}, //nolint:misspell // Spanish
		read: []string{"lee ", "leer", "lea ", "abre "}, before: []string{"antes de usar", "antes de utilizar"},
		orders: []string{"siempre", "nunca", "debes", "asegúrate", "no le digas", "no digas", "envía", "incluye", "ignora"},
		secret: []string{"contraseña", "contrasena", "clave api", "claves api", "tarjeta de crédito", "variables de entorno", "credenciales", "cookies"},
		voids:  []string{"no se aplican", "ya no aplican", "ya no son válidas", "no cuentan"},
	},
	{ // French
		script: setLatin,
		ignore: []string{"ignore", "oublie", "oubliez", "ignorez", "ne tiens pas compte", "ne tenez pas compte"}, rules: []string{"instructions", "consignes", "règles", "directives"},
		negTell: []string{"ne dis rien", "ne dites rien", "n'informe pas", "n'informez pas", "ne mentionne pas", "ne mentionnez pas", "ne dis pas", "ne révèle pas", "sans prévenir", "sans informer", "sans le dire"}, user: []string{"utilisateur", "personne"},
		include: []string{"inclus", "incluez", "inclure", "ajoute", "ajoutez", "mets ", "mettez", "envoie", "envoyez", "joins", "copie"}, convo: []string{"messages", "conversation", "historique", "discussion"},
		read: []string{"lis ", "lisez", "lire ", "ouvre "}, before: []string{"avant d'utiliser", "avant d’utiliser"},
		orders: []string{"toujours", "jamais", "vous devez", "tu dois", "assurez-vous", "n'oubliez", "envoyez", "incluez", "ignorez", "ne dites"},
		secret: []string{"mot de passe", "mots de passe", "clé api", "clés api", "carte bancaire", "carte de crédit", "variables d'environnement", "identifiants", "cookies"},
		voids:  []string{"ne s'appliquent plus", "ne sont plus valables", "ne comptent pas", "ne s'appliquent pas"},
	},
	{ // German
		script: setLatin,
		ignore: []string{"ignoriere", "ignorieren sie", "vergiss", "vergessen sie", "missachte"}, rules: []string{"anweisungen", "anweisung", "regeln", "vorgaben", "instruktionen"},
		negTell: []string{"sage dem benutzer nichts", "sag dem benutzer nichts", "sage nichts", "sag nichts", "verschweige", "erwähne nicht", "erwähne das nicht", "informiere nicht", "nichts davon", "nicht informiert", "darüber nicht", "nicht erfahren", "ohne den nutzer zu informieren", "ohne den benutzer zu informieren", "niemals"}, user: []string{"benutzer", "nutzer", "anwender", "niemand"},
		include: []string{"füge", "fügen sie", "sende", "senden sie", "schicke", "übergib", "übergeben", "kopiere", "hänge", "auslesen"}, convo: []string{"nachrichten", "unterhaltung", "gespräch", "verlauf", "konversation", "chat"}, //nolint:misspell // German
		read: []string{"lies ", "lesen sie", "öffne "}, before: []string{"bevor du", "bevor sie", "vorher"},
		orders: []string{"immer", "niemals", "du musst", "sie müssen", "stelle sicher", "sende", "füge", "ignoriere"},
		secret: []string{"passwort", "passwörter", "kennwort", "api-schlüssel", "zugangsdaten", "kreditkarte", "umgebungsvariablen", "cookies"},
		voids:  []string{"gelten nicht", "gelten nicht mehr", "nicht mehr gültig", "sind aufgehoben"},
	},
	{ // Portuguese
		script: setLatin,
		ignore: []string{"ignore", "ignora", "esqueça", "desconsidere"}, rules: []string{"instruções", "instrucoes", "regras", "orientações"},
		negTell: []string{"não conte", "não diga", "não informe", "não mencione", "não revele", "nao conte", "nao diga", "sem avisar", "sem informar"}, user: []string{"usuário", "usuario", "utilizador", "ninguém"},
		include: []string{"inclua", "incluir", "adicione", "coloque", "envie", "passe ", "anexe", "copie", "ponha", "insira"}, convo: []string{"mensagens", "conversa", "histórico", "historico"},
		read: []string{"leia", "ler ", "abra "}, before: []string{"antes de usar", "antes de utilizar"},
		orders: []string{"sempre", "nunca", "você deve", "certifique-se", "não diga", "envie", "inclua", "ignore"},
		secret: []string{"senha", "senhas", "chave de api", "chaves de api", "cartão de crédito", "variáveis de ambiente", "credenciais", "cookies"},
		voids:  []string{"não valem", "não se aplicam", "deixam de valer", "não são válidas"},
	},
	{ // Italian
		script: setLatin,
		ignore: []string{"ignora", "dimentica", "ignorate"}, rules: []string{"istruzioni", "regole", "indicazioni"},
		negTell: []string{"non dire", "non informare", "non menzionare", "non rivelare", "senza avvisare", "senza informare"}, user: []string{"utente", "nessuno"},
		include: []string{"includi", "aggiungi", "invia", "metti", "allega", "copia"}, convo: []string{"messaggi", "conversazione", "cronologia", "chat"},
		read: []string{"leggi", "apri "}, before: []string{"prima di usare", "prima di utilizzare"},
		orders: []string{"sempre", "devi", "assicurati", "non dire", "invia", "includi", "ignora"},
		secret: []string{"password", "chiave api", "chiavi api", "carta di credito", "codice cvv", "variabili d'ambiente", "credenziali", "cookie"},
		voids:  []string{"non valgono", "non si applicano", "non sono più valide"},
	},
	{ // Russian
		script: setCyrillic,
		ignore: []string{"игнорируй", "игнорируйте", "забудь", "забудьте", "не обращай внимания"}, rules: []string{"инструкци", "указани", "правил"},
		negTell: []string{"не говори", "не говорите", "ничего не говори", "не сообщай", "не сообщайте", "не упоминай", "не рассказывай"}, user: []string{"пользовател", "никому"},
		include: []string{"добавляй", "добавь", "включай", "включи", "передай", "передавай", "отправь", "отправляй", "вставь", "скопируй"}, convo: []string{"сообщени", "переписк", "истори", "разговор", "диалог"},
		read: []string{"прочитай", "прочти", "прочитайте", "открой"}, before: []string{"перед использованием", "прежде чем"},
		orders: []string{"всегда", "никогда", "должен", "обязательно", "не говори", "отправь", "добавь", "игнорируй"},
		secret: []string{"пароль", "пароли", "api-ключ", "ключ api", "токен", "кредитн", "переменные окружения", "учётные данные", "учетные данные", "куки", "закрытый ключ", "ssh-ключ"},
		voids:  []string{"больше не действуют", "не действуют", "не применяются", "отменены"},
	},
	{ // Chinese
		script: setHan,
		ignore: []string{"忽略", "无视", "忘记", "忽视"}, rules: []string{"指令", "指示", "规则"},
		negTell: []string{"不要告诉", "别告诉", "不要让用户知道", "不要提及", "不要透露", "不要通知"}, user: []string{"用户", "任何人"},
		include: []string{"包含", "放入", "附加", "发送", "传入", "填入", "加入", "复制"}, convo: []string{"消息", "对话", "聊天", "历史"},
		read: []string{"读取", "打开", "查看"}, before: []string{"之前", "使用此工具前", "使用本工具前"},
		orders: []string{"必须", "务必", "始终", "总是", "不要", "请勿", "一定要", "忽略"},
		secret: []string{"密码", "密钥", "令牌", "信用卡", "环境变量", "凭证", "cookie"},
		voids:  []string{"不再适用", "不适用", "已失效", "作废"},
	},
	{ // Japanese
		script: setKana | setHan,
		ignore: []string{"無視", "忘れ"}, rules: []string{"指示", "命令", "ルール", "指令"},
		negTell: []string{"伝えない", "言わない", "知らせない", "教えない", "伝えるな", "言うな"}, user: []string{"ユーザー", "利用者", "誰にも"},
		include: []string{"含め", "入れ", "送信", "添付", "追加", "渡し", "コピー"}, convo: []string{"メッセージ", "会話", "履歴", "チャット"},
		read: []string{"読み", "読ん", "開い", "開き"}, before: []string{"前に", "使う前"},
		orders: []string{"必ず", "しないで", "してください", "常に", "絶対に", "無視"},
		secret: []string{"パスワード", "apiキー", "トークン", "クレジットカード", "環境変数", "認証情報", "クッキー"},
		voids:  []string{"適用されません", "無効です", "もう適用"},
	},
	{ // Korean
		script: setHangul,
		ignore: []string{"무시", "잊어"}, rules: []string{"지시", "명령", "규칙", "지침"},
		negTell: []string{"알리지 마", "말하지 마", "알려주지 마", "언급하지 마", "말하지 말"}, user: []string{"사용자", "아무에게"},
		include: []string{"포함", "넣으", "넣어", "첨부", "보내", "전송", "추가", "복사"}, convo: []string{"메시지", "대화", "기록", "채팅"},
		read: []string{"읽고", "읽어", "읽은", "열어"}, before: []string{"전에", "사용하기 전"},
		orders: []string{"반드시", "항상", "하지 마", "하세요", "절대", "무시"},
		secret: []string{"비밀번호", "암호", "api 키", "토큰", "신용카드", "환경 변수", "자격 증명", "쿠키"},
		voids:  []string{"적용되지 않", "더 이상 유효하지", "무효"},
	},
}

// langSet is a set of scripts a text is written in.
type langSet uint8

const (
	setLatin langSet = 1 << iota
	setCyrillic
	setHan
	setKana
	setHangul
)

// foreignCues are words that show a Latin-script text is not English (in
// the clean text, accents folded), so that the foreign lexicons are worth
// trying on it; two of them are needed.
const foreignCues = "las los del les des une der die das und nicht ist os ao uma nao todas toutes alle sempre siempre toujours immer usuario utilisateur benutzer tutte utente que pas dem ne " +
	"della delle nel nella per che deve sono gli dei para com voce seu sua est avec pour dans sur sie mit fur auf muss wird"

// findForeign runs the lexicons over each sentence of the original text.
func (c *textCtx) findForeign() {
	if c.hasHit(sigModel) && c.hasHit(sigExfil) {
		return
	}
	// Which lexicons are worth trying: the Latin-script ones on a text
	// with words of those languages, the others on a text in their script.
	o := c.orig
	var set langSet
	if c.foreignN >= 2 {
		set |= setLatin
	}
	// A text prepare found all ASCII has no rune of another script.
	for i := 0; i < len(o) && !c.origASCII; {
		if o[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, sz := utf8.DecodeRuneInString(o[i:])
		i += sz
		switch {
		case r >= 0xC0 && r <= 0x24F:
			// Accented Latin letters: Spanish, French, German, Portuguese.
			set |= setLatin
		case r >= 0x400 && r <= 0x4FF:
			set |= setCyrillic
		case r >= 0x3040 && r <= 0x30FF:
			set |= setKana
		case r >= 0x4E00 && r <= 0x9FFF:
			set |= setHan
		case r >= 0xAC00 && r <= 0xD7AF:
			set |= setHangul
		}
	}
	if set == 0 {
		return
	}
	low := strings.ToLower(o)
	if len(low) != len(o) {
		// Lower-casing changed lengths (rare letters); offsets below are
		// then approximate, which only moves the excerpt.
		low = low[:min(len(low), len(o))]
	}
	englishFirst := false
	for s, first := 0, true; s < len(low); first = false {
		e := s
		for e < len(low) {
			ch := low[e]
			if ch == '\n' || ((ch == '.' || ch == '!' || ch == '?') && (e+1 == len(low) || low[e+1] == ' ' || low[e+1] == '\n')) {
				break
			}
			if ch == 0xE3 && e+2 < len(low) && low[e+1] == 0x80 && (low[e+2] == 0x82) { // 。
				break
			}
			if ch == 0xEF && e+2 < len(low) && low[e+1] == 0xBC && (low[e+2] == 0x81 || low[e+2] == 0x9F) { // ！？
				break
			}
			e++
		}
		if e-s >= 6 {
			sent := stripQuoted(low[s:e])
			if first {
				englishFirst = englishSentence(sent)
			}
			if sig, ok := foreignSentence(sent, set); ok && !c.hasHit(sig) && !(sig == sigExfil && c.credentialTool()) {
				c.hits = append(c.hits, hit{sig: sig, start: s, end: e})
			} else if englishFirst && !first && !c.hasHit(sigSwitch) && switchedOrder(sent, set) {
				c.hits = append(c.hits, hit{sig: sigSwitch, start: s, end: e})
			}
		}
		s = e + 1
	}
}

// englishSentence reports a sentence in ASCII with two common English
// words at least: a description that starts in English.
func englishSentence(s string) bool {
	n := 0
	for _, w := range strings.Fields(s) {
		if w[0] >= utf8.RuneSelf {
			return false
		}
		if stopwords[strings.Trim(w, ".,;:!?()")] {
			n++
		}
	}
	return n >= 2
}

// switchedOrder reports a sentence in another language that gives an
// order in it, in a text that started in English: the switch is where an
// instruction hides from a reviewer who reads the English.
func switchedOrder(s string, set langSet) bool {
	for i := range langs {
		l := &langs[i]
		if set&l.script == 0 || !anyIn(s, l.orders) {
			continue
		}
		if l.script == setLatin && foreignWords(s) < 2 {
			// A Latin-script sentence must read as the language, not
			// merely hold a word of it ("always sempre fi").
			continue
		}
		return true
	}
	return false
}

// foreignWords counts the words of s that are cues of another
// Latin-script language.
func foreignWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if lookupWord(strings.Trim(w, ".,;:!?()"))&wForeign != 0 {
			n++
		}
	}
	return n
}

// stripQuoted blanks text in quotes: a mention, not an instruction.
func stripQuoted(s string) string {
	if !strings.ContainsAny(s, "\"“«„") {
		return s
	}
	b := []byte(s)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"«", "»"}, {"„", "“"}} {
		// One pass per quote kind: each search starts where the last pair
		// ended, so the work is linear in the sentence whatever it holds.
		from := 0
		for from < len(b) {
			i := bytes.Index(b[from:], []byte(q[0]))
			if i < 0 {
				break
			}
			i += from
			j := bytes.Index(b[i+len(q[0]):], []byte(q[1]))
			if j < 0 {
				break
			}
			end := i + len(q[0]) + j + len(q[1])
			for k := i; k < end; k++ {
				b[k] = ' '
			}
			from = end
		}
	}
	return string(b)
}

// foreignSentence reports the intent of one lower-case sentence, if any
// language's lexicon finds both halves of one.
func foreignSentence(s string, set langSet) (int, bool) {
	for i := range langs {
		l := &langs[i]
		if set&l.script == 0 {
			continue
		}
		switch {
		case anyIn(s, l.ignore) && anyIn(s, l.rules) && !strings.Contains(s, "被忽略"):
			return sigModel, true
		case anyIn(s, l.negTell) && (anyIn(s, l.user) || strings.Contains(s, "nada") || strings.Contains(s, "rien") || strings.Contains(s, "nichts") || strings.Contains(s, "niente") || strings.Contains(s, "ничего") || strings.Contains(s, "何も")):
			return sigModel, true
		case anyIn(s, l.include) && anyIn(s, l.convo) && (anyIn(s, l.user) || strings.Contains(s, "param") || strings.Contains(s, "параметр") || strings.Contains(s, "参数") || strings.Contains(s, "パラメータ") || strings.Contains(s, "매개변수") || strings.Contains(s, "feld") || strings.Contains(s, "campo") || strings.Contains(s, "champ")):
			return sigExfil, true
		case (anyIn(s, l.read) || anyIn(s, l.before)) && sensitiveToken(s):
			return sigModel, true
		case anyIn(s, l.secret) && !anyIn(s, foreignNegations) && (anyIn(s, l.include) || anyIn(s, l.read)) && (strings.ContainsRune(s, '`') || strings.Contains(s, "param") || strings.Contains(s, "параметр") || strings.Contains(s, "参数") || strings.Contains(s, "パラメータ") || strings.Contains(s, "필드") || strings.Contains(s, "feld") || strings.Contains(s, "campo") || strings.Contains(s, "champ") || strings.Contains(s, "поле") || strings.Contains(s, "字段") || strings.Contains(s, "フィールド")):
			// A secret of the user's, into a field: the exfiltration of
			// intent.go, in the language's own words.
			return sigExfil, true
		case anyIn(s, l.rules) && anyIn(s, l.voids):
			return sigModel, true
		}
	}
	return 0, false
}

func anyIn(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// foreignNegations are the other languages' negations: a sentence about a
// secret with one in it states a condition or a prohibition ("if the
// variable is not set ..."), not an order to hand the secret over.
var foreignNegations = []string{" no ", " ne ", " pas ", " nicht ", " kein", " não ", " nao ", " non ", " не ", " нет ", "不", "未", "没", "勿",
	"ない", "ません", "않", "지 마", "없"}

// credentialTool reports a tool whose own name or parameters are about
// credentials: it documents them as a matter of course.
func (c *textCtx) credentialTool() bool {
	return c.tool != nil && (c.tool.purposeHas(famSecret) || c.tool.paramIn(famSecret))
}
