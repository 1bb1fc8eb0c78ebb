import { textLengthUpTo, walkElements } from "../dom.ts";

/**
 * A newsletter sign-up box: a form that asks for an e-mail address and nothing to write at length,
 * beside a heading and a line of pitch ("Deals, drops and trends. Straight to your inbox"). The form
 * goes as furniture, but the pitch sits outside it, and on a product page, whose content is a name, a
 * price and specifications, that pitch can be the only prose there is: it would be taken for the content.
 */

const EMAIL_NAME = /e-?mail/i;
/** What a sign-up box says of itself; a box saying none of it (a back-in-stock alert) stays. */
const SIGNUP_WORDS =
  /newsletter|subscri|sign(?:[\s-]?me)?[\s-]?up|inbox|mailing[\s-]list|stay (?:in touch|up to date|informed)/i;
/** A sign-up form's own text: a label, a button, a line of fine print (a form around the whole page is not one). */
const FORM_CHARS = 400;
/** A box's own text beside its form: a heading and a sentence or two. */
const PITCH_CHARS = 300;

function isEmailField(input: Element): boolean {
  const type = input.getAttribute("type")?.trim().toLowerCase() ?? "text";
  if (type === "email") return true;
  if (type !== "text") return false;
  for (const name of ["name", "id", "placeholder", "autocomplete", "aria-label"]) {
    const value = input.getAttribute(name);
    if (value && EMAIL_NAME.test(value)) return true;
  }
  return false;
}

/** Forms asking for an e-mail address with no field to write a message or a password in. Read before inputs are stripped. */
export function emailForms(root: Element): Element[] {
  const forms = new Set<Element>();
  walkElements(root, (el) => {
    if (el.nodeName !== "INPUT" || !isEmailField(el)) return true;
    const form = el.closest("form");
    if (form && !forms.has(form) && !form.querySelector("textarea, input[type=password]")) forms.add(form);
    return true;
  });
  return [...forms];
}

/** Each form's box: its outermost ancestor holding little text besides it and not the page's title. */
export function removeSignupBoxes(forms: readonly Element[], body: Element): void {
  for (const form of forms) {
    if (!body.contains(form)) continue;
    const formChars = textLengthUpTo(form, FORM_CHARS);
    if (formChars > FORM_CHARS) continue;
    let box = form;
    for (let up = form.parentElement; up && up !== body; up = up.parentElement) {
      if (textLengthUpTo(up, formChars + PITCH_CHARS + 1) > formChars + PITCH_CHARS) break;
      if (up.querySelector("h1")) break;
      box = up;
    }
    if (SIGNUP_WORDS.test(box.textContent ?? "")) box.remove();
  }
}
