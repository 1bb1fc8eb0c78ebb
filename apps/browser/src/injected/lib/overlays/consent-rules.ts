/*
 * The words that make an element, its text or an iframe a consent dialog, and the phrases that say what
 * a button in one does. Data for the in-page overlay pass (entries/overlay-pass.ts) and, through
 * classify-button.ts, for Node.
 */

export type ButtonKind = "reject" | "accept" | "close" | "unsafe";

/** Regular-expression sources (flags "iu"), matched against a button's normalized text. */
export interface ButtonRules {
  /** Longer texts are not buttons this module understands (but are still checked for `unsafe`). */
  maxLength: number;
  unsafe: string;
  reject: string;
  accept: string;
  close: string;
}

/** Words or phrases, matched whole (a letter or digit may not touch either end). */
const phrases = (alts: readonly string[]): string =>
  `(?:^|[^\\p{L}\\p{N}])(?:${alts.join("|")})(?=$|[^\\p{L}\\p{N}])`;

export const BUTTON_RULES: ButtonRules = {
  maxLength: 60,
  // Anything that buys, subscribes or signs up: never clicked, even when a known CMP's button says so.
  unsafe: phrases([
    "buy",
    "buy now",
    "purchase",
    "subscribe",
    "subscription",
    "check ?out",
    "pay",
    "payment",
    "order",
    "sign ?up",
    "register",
    "log ?in",
    "sign in",
    "donate",
    "upgrade",
    "(?:free|start) trial",
    "add to (?:cart|basket|bag)",
    "kaufen",
    "jetzt kaufen",
    "bestellen",
    "abonnieren",
    "abo abschließen",
    "registrieren",
    "anmelden",
    "acheter",
    "commander",
    "s'abonner",
    "abonnez-vous",
    "s'inscrire",
    "comprar",
    "suscribirse",
    "suscríbete",
    "pagar",
    "acquista",
    "abbonati",
    "iscriviti",
    "abonneren",
    "kopen",
  ]),
  reject: phrases([
    "reject(?: all)?(?: cookies)?",
    "decline(?: all)?(?: cookies)?",
    "deny(?: all)?",
    "refuse(?: all)?",
    "disagree",
    "do not agree",
    "don't agree",
    "(?:i )?do not accept",
    "don't accept",
    "do not consent",
    "don't consent",
    "don't allow",
    "do not allow",
    "no thanks",
    "no, thanks",
    "opt[- ]out",
    "continue without (?:accepting|agreeing|consent)",
    "(?:strictly )?(?:necessary|essential|required|functional)(?: cookies)? only",
    "only (?:strictly )?(?:necessary|essential|required|functional)(?: cookies)?",
    "(?:use|allow|accept) (?:strictly )?(?:necessary|essential|required)(?: cookies)? only",
    "ablehnen",
    "alle ablehnen",
    "verweigern",
    "nicht zustimmen",
    "nicht einverstanden",
    "nur (?:technisch )?(?:notwendige|essenzielle|essentielle|erforderliche)",
    "ohne (?:zustimmung|einwilligung)",
    "refuser",
    "tout refuser",
    "je refuse",
    "continuer sans accepter",
    "(?:uniquement )?(?:les )?(?:cookies )?nécessaires(?: uniquement)?",
    "rechazar(?: todo| todas| todos)?",
    "denegar",
    "no acepto",
    "solo (?:las )?necesarias",
    "rifiuta(?: tutto| tutti)?",
    "rifiuto",
    "continua senza accettare",
    "solo (?:i )?necessari",
    "weigeren",
    "alles weigeren",
    "alleen noodzakelijke",
    "rejeitar(?: tudo)?",
    "recusar",
    "odrzuć(?: wszystkie)?",
  ]),
  accept: phrases([
    "accept(?: all)?(?: cookies)?",
    "i accept",
    "agree",
    "i agree",
    "allow(?: all)?(?: cookies)?",
    "got it",
    "ok",
    "okay",
    "understood",
    "i understand",
    "yes",
    "consent",
    "akzeptieren",
    "alle akzeptieren",
    "alles akzeptieren",
    "annehmen",
    "alle annehmen",
    "zustimmen",
    "allen zustimmen",
    "einverstanden",
    "(?:alle )?zulassen",
    "(?:alle )?erlauben",
    "verstanden",
    "accepter",
    "tout accepter",
    "j'accepte",
    "d'accord",
    "(?:tout )?autoriser",
    "compris",
    "aceptar(?: todo| todas| todos)?",
    "acepto",
    "de acuerdo",
    "permitir",
    "entendido",
    "accetta(?: tutto| tutti)?",
    "accetto",
    "consenti",
    "ho capito",
    "akkoord",
    "(?:alles )?accepteren",
    "toestaan",
    "aceitar(?: tudo)?",
    "aceito",
    "concordo",
  ]),
  close: `${phrases([
    "close",
    "dismiss",
    "schließen",
    "schliessen",
    "fermer",
    "cerrar",
    "chiudi",
    "sluiten",
    "fechar",
  ])}|^[×✕✖✗╳x]$`,
};

/** Words in an element's own id, class or aria-label that make it a consent banner. */
export const CONSENT_ATTR =
  "cookie|consent|gdpr|privacy|datenschutz|rgpd|onetrust|optanon|didomi|usercentrics|truste|cybot|sp_message|qc-cmp|cky-|cmplz|klaro|osano|iubenda|cmpbox|tarteaucitron|axeptio|cookiescript";
/** Words in a banner's text that make it a consent banner (with a consent button, or no button at all). */
export const CONSENT_TEXT = "\\bcookies?\\b|\\bconsent|\\bgdpr\\b|datenschutz|\\brgpd\\b|\\beinwilligung";
/** An iframe (id, name, or host + path of its src) that holds a consent dialog. */
export const CONSENT_FRAME =
  "consent|cookie|gdpr|privacy|sp_message|truste|trustarc|didomi|usercentrics|onetrust|cookiebot|\\bcmp";
