// Sign-up and login detection (SPEC "Sign-up detection and audit flow", DESIGN §15): a pure DOM library
// the content script calls in every frame. It never reads an input's value except the username field's,
// in loginUsername, and reaches the DOM only through the prototypes' own methods and getters, so a page
// whose elements are named "forms" or "getElementsByTagName" (DOM clobbering) cannot mislead or break it.

export type SignupLayer = 'url' | 'new-password' | 'confirm-password' | 'registration-fields' | 'page-text';
export interface SignupMatch {
  layer: SignupLayer;
  index: 1 | 2 | 3 | 4 | 5;
  /** Short, for logs and the popup, e.g. 'path /signup'. */
  reason: string;
}
export interface LoginForm {
  /** The form or form-like group. */
  root: Element;
  password: HTMLInputElement;
  username: HTMLInputElement | null;
}

/** The work is capped so that a page of hundreds of thousands of elements costs milliseconds. */
const MAX_ELEMENTS_SCANNED_FOR_SHADOW = 100_000;
const MAX_FIELDS = 1_500;
const MAX_ACTIONS = 3_000;
const GROUP_CLIMB = 10;
const HEADING_CLIMB = 4;
const TEXT_CAP = 160;
const MAX_SHADOW_QUERIES = 200;

// Safe DOM access: methods and getters taken from the prototypes, never looked up on the node.

interface Dom {
  qsa(root: Node, selector: string, cap: number): Element[];
  /** The last element in root that matches, in document order. */
  last(root: Node, selector: string): Element | null;
  attr(el: Element, name: string): string | null;
  tag(el: Element): string;
  nodeType(node: Node): number;
  text(node: Node): string;
  parentNode(node: Node): Node | null;
  host(root: Node): Element | null;
  shadow(el: Element): ShadowRoot | null;
  formOf(el: Element): HTMLFormElement | null;
  prev(el: Element): Element | null;
  before(a: Node, b: Node): boolean;
  visible(el: Element): boolean;
  inputType(el: Element): string;
  value(input: HTMLInputElement): string;
}

let cachedDom: Dom | null = null;

function getter<T>(proto: object, name: string): ((self: unknown) => T) | null {
  for (let p: object | null = proto; p; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d?.get) {
      const get = d.get;
      return (self) => Reflect.apply(get, self, []) as T;
    }
  }
  return null;
}

function method<T>(fn: unknown): (self: unknown, ...args: unknown[]) => T {
  const f = fn as (...args: unknown[]) => T;
  return (self, ...args) => Reflect.apply(f, self, args);
}

function dom(): Dom {
  if (cachedDom) return cachedDom;
  const g = globalThis as typeof globalThis;
  const qsaDoc = method<NodeListOf<Element>>(g.Document.prototype.querySelectorAll);
  const qsaEl = method<NodeListOf<Element>>(g.Element.prototype.querySelectorAll);
  const qsaFrag = method<NodeListOf<Element>>(g.DocumentFragment.prototype.querySelectorAll);
  const getAttribute = method<string | null>(g.Element.prototype.getAttribute);
  const compare = method<number>(g.Node.prototype.compareDocumentPosition);
  const checkVisibility = (g.Element.prototype as { checkVisibility?: unknown }).checkVisibility;
  const check = checkVisibility ? method<boolean>(checkVisibility) : null;
  const nodeTypeOf = getter<number>(g.Node.prototype, 'nodeType');
  const localName = getter<string>(g.Element.prototype, 'localName');
  const textContent = getter<string | null>(g.Node.prototype, 'textContent');
  const parentNodeOf = getter<Node | null>(g.Node.prototype, 'parentNode');
  const hostOf = getter<Element>(g.ShadowRoot.prototype, 'host');
  const shadowRootOf = getter<ShadowRoot | null>(g.Element.prototype, 'shadowRoot');
  const prevSibling = getter<Element | null>(g.Element.prototype, 'previousElementSibling');
  const formGetters: Record<string, ((self: unknown) => HTMLFormElement | null) | null> = {
    input: getter(g.HTMLInputElement.prototype, 'form'),
    select: getter(g.HTMLSelectElement.prototype, 'form'),
    textarea: getter(g.HTMLTextAreaElement.prototype, 'form'),
    button: getter(g.HTMLButtonElement.prototype, 'form'),
  };
  const typeOf = getter<string>(g.HTMLInputElement.prototype, 'type');
  const inputValue = getter<string>(g.HTMLInputElement.prototype, 'value');
  if (!nodeTypeOf || !localName || !textContent || !parentNodeOf || !hostOf || !shadowRootOf) {
    throw new Error('detect: this browser lacks a DOM getter it needs');
  }
  const tag = (el: Element) => (localName(el) ?? '').toLowerCase();
  cachedDom = {
    qsa(root, selector, cap) {
      const type = nodeTypeOf(root);
      const list =
        type === 9 ? qsaDoc(root, selector) : type === 11 ? qsaFrag(root, selector) : qsaEl(root, selector);
      const out: Element[] = [];
      const n = Math.min(list.length, cap);
      for (let i = 0; i < n; i++) out.push(list[i] as Element);
      return out;
    },
    last(root, selector) {
      const type = nodeTypeOf(root);
      const list =
        type === 9 ? qsaDoc(root, selector) : type === 11 ? qsaFrag(root, selector) : qsaEl(root, selector);
      return list.length ? (list[list.length - 1] as Element) : null;
    },
    attr: (el, name) => getAttribute(el, name),
    tag,
    nodeType: (node) => nodeTypeOf(node),
    text: (node) => (textContent(node) ?? '').slice(0, TEXT_CAP * 4),
    parentNode: (node) => parentNodeOf(node),
    host: (root) => (nodeTypeOf(root) === 11 ? hostOf(root) : null),
    shadow: (el) => shadowRootOf(el),
    formOf(el) {
      const get = formGetters[tag(el)];
      return get ? get(el) : null;
    },
    prev: (el) => (prevSibling ? prevSibling(el) : null),
    // Nodes in different shadow trees compare as disconnected: their order is unknown, so "before".
    before: (a, b) => (compare(a, b) & 5) !== 0,
    visible: (el) => (check ? check(el, { visibilityProperty: true }) : true),
    inputType: (el) => (tag(el) === 'input' && typeOf ? typeOf(el) : tag(el)),
    value: (input) => (inputValue ? inputValue(input) : ''),
  };
  return cachedDom;
}

function rootNode(d: Dom, node: Node): Node {
  let n = node;
  for (let p = d.parentNode(n), i = 0; p && i < 512; p = d.parentNode(p), i++) n = p;
  return n;
}

/** The element's parent in the composed tree: across a shadow root to its host. */
function composedParent(d: Dom, node: Node): Element | null {
  const p = d.parentNode(node);
  if (!p) return null;
  const t = d.nodeType(p);
  if (t === 1) return p as Element;
  if (t === 11) return d.host(p);
  return null;
}

// Words

/** Lower case, accents dropped, one space between words: "Créer un compte" → "creer un compte". */
function norm(s: string): string {
  return plain(s.slice(0, TEXT_CAP)).toLowerCase().replace(/\s+/g, ' ').trim();
}

const NOT_ASCII = /[^\x20-\x7e]/;

/** Accents dropped and typographic apostrophes made plain; ASCII passes untouched (the usual case). */
function plain(s: string): string {
  return NOT_ASCII.test(s) ? s.normalize('NFD').replace(/\p{M}/gu, '').replace(/[’`´]/g, "'") : s;
}

const JOIN_NOT_ACCOUNT =
  'meeting|call|room|game|class|session|conversation|chat|webinar|waitlist|wait list|waiting list|newsletter|' +
  'mailing|lobby|event|stream|channel|server|group|match|lesson|course|discussion|list|live|queue';
const STRONG_SIGNUP = [
  'create (?:a |an |your |my |new |free |the )*account',
  'open (?:a |an |your )?account',
  'new account',
  'konto (?:jetzt )?(?:erstellen|anlegen|eroffnen|einrichten)',
  'neues konto',
  'creer (?:un |mon |votre |ton |son )?compte',
  'ouvrir (?:un |mon |votre )?compte',
  'crear (?:una |tu |mi |su )?cuenta',
  'abrir (?:una |tu |mi )?cuenta',
];
const SIGNUP = new RegExp(
  `\\b(?:${[
    ...STRONG_SIGNUP,
    'sign[ -]?up',
    'register',
    'registration',
    `join(?! (?:the |a |an |our |this |my |your )?(?:${JOIN_NOT_ACCOUNT})\\b)`,
    'registrier(?:en|ung)',
    'mitglied werden',
    "s'inscrire",
    "s'enregistrer",
    'inscri(?:vez|s)[- ](?:vous|toi)',
    'inscription',
    'registr(?:ate|arse|arme)',
    'registro',
    'unete',
    'inscribete',
    'darse de alta',
    'date de alta',
  ].join('|')})\\b`,
);
const STRONG = new RegExp(`\\b(?:${STRONG_SIGNUP.join('|')})\\b`);
const LOGIN =
  /\b(?:log ?in|log ?on|sign ?in|anmelden|anmeldung|einloggen|se connecter|connexion|connecte[- ]toi|connectez[- ]vous|iniciar sesion|inicia sesion|entrar|acceder|ingresar|welcome back|willkommen zuruck|bon retour)\b/;
const SOCIAL =
  /\b(?:with|mit|avec|con) (?:google|apple|facebook|microsoft|github|gitlab|twitter|x|linkedin|amazon|discord|steam|passkey)\b/;
const FORGOT = /forgot|vergessen|oublie|olvid|trouble (?:signing|logging) in|reset (?:your )?password/;
const MEETING = /meeting|webinar|passcode|\bcall\b|\bclass\b|konferenz|besprechung|reunion|seance|classe\b/;
const DISMISS = /^(?:cancel|back|abbrechen|zuruck|annuler|retour|cancelar|volver|atras)\b/;
const SAVE = /\b(?:save|update|speichern|aktualisieren|enregistrer|mettre a jour|guardar|actualizar)\b/;
const NEWSLETTER =
  /newsletter|mailing list|bulletin|boletin|infolettre|subscri|abonn|suscri|updates|deals|angebote|offres/;

function isSignupText(t: string): boolean {
  return SIGNUP.test(t) && !LOGIN.test(t) && !SOCIAL.test(t);
}
/** The same, where "join" alone does not count (a meeting or a class to join). */
function isSignupTextNoJoin(t: string): boolean {
  return isSignupText(t.replace(/\bjoin\b/g, ' '));
}
function isLoginText(t: string): boolean {
  return LOGIN.test(t) && !SIGNUP.test(t) && !SOCIAL.test(t);
}

// Fields

type RegKind = 'given-name' | 'family-name' | 'birth-date' | 'phone';

interface Field {
  el: Element;
  tag: string;
  type: string;
  visible: boolean;
  password: boolean;
  newPassword: boolean;
  currentPassword: boolean;
  identity: boolean;
  reg: RegKind | null;
  /** A field that says the form is not an account form when it has no password: search, address, card, message. */
  notAccount: boolean;
  /** A password field that opens a meeting or a room (a passcode, a PIN), not an account. */
  gate: boolean;
}

const GATE =
  /pass ?code|meeting|\bpin\b|access ?code|\broom\b|zugangscode|kenncode|code d'acces|codigo de acceso|code secret/;
const TEXT_TYPES = new Set(['text', 'email', 'tel', 'number', '']);
const IDENTITY_TOKENS = new Set([
  'email',
  'mail',
  'username',
  'userid',
  'login',
  'benutzer',
  'benutzername',
  'usuario',
  'correo',
  'identifiant',
  'identifier',
  'courriel',
]);
const GIVEN_TOKENS = new Set(['fname', 'firstname', 'givenname', 'vorname', 'prenom', 'forename', 'nombre']);
const FAMILY_TOKENS = new Set([
  'lname',
  'lastname',
  'surname',
  'familyname',
  'nachname',
  'apellido',
  'apellidos',
  'nom',
]);
const PHONE_TOKENS = new Set([
  'phone',
  'mobile',
  'tel',
  'telephone',
  'telefon',
  'telefonnummer',
  'handy',
  'handynummer',
  'mobil',
  'telefono',
  'celular',
  'movil',
  'phonenumber',
  'mobilenumber',
  'cellphone',
]);
const BIRTH_TOKENS = new Set([
  'dob',
  'birthday',
  'birthdate',
  'bday',
  'dateofbirth',
  'geburtsdatum',
  'geburtstag',
  'naissance',
  'datenaissance',
  'nacimiento',
  'fechanacimiento',
  'birth',
  'birthyear',
  'birthmonth',
]);
const NOT_ACCOUNT_TOKENS = new Set([
  'q',
  'query',
  'search',
  'suche',
  'recherche',
  'buscar',
  'street',
  'address',
  'addr',
  'address1',
  'address2',
  'zip',
  'zipcode',
  'postcode',
  'postal',
  'postalcode',
  'city',
  'plz',
  'strasse',
  'ville',
  'codepostal',
  'direccion',
  'ciudad',
  'card',
  'cardnumber',
  'ccnumber',
  'cvc',
  'cvv',
  'iban',
  'message',
  'nachricht',
  'mensaje',
  'comment',
  'subject',
]);

/** "user[firstName]" → ["user", "first", "name", "firstname", "userfirst"]: the words and each pair run together. */
function tokens(s: string): string[] {
  if (!s) return [];
  const words = plain(s.slice(0, TEXT_CAP).replace(/([a-z])([A-Z])/g, '$1 $2'))
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const out = [...words];
  for (let i = 0; i + 1 < words.length; i++) out.push(`${words[i]}${words[i + 1]}`);
  for (let i = 0; i + 2 < words.length; i++) out.push(`${words[i]}${words[i + 1]}${words[i + 2]}`);
  return out;
}

const LABEL_IDENTITY =
  /e-?mail|\busername\b|\buser name\b|\blogin\b|benutzername|nom d'utilisateur|identifiant|\busuario\b|\bcorreo\b|courriel/;
const LABEL_GIVEN = /\b(?:first name|given name|forename|vorname|prenom|nombre)\b/;
const LABEL_FAMILY = /\b(?:last name|surname|family name|nachname|nom de famille|apellidos?)\b|^nom\b/;
const LABEL_PHONE = /\b(?:phone|mobile|telephone|telefon\w*|handy\w*|mobilnummer|telefono|celular|movil)\b/;
const LABEL_BIRTH =
  /\b(?:date of birth|birth ?date|birthday|geburtsdatum|geburtstag|date de naissance|fecha de nacimiento)\b/;

function autocompleteTokens(d: Dom, el: Element): string[] {
  const ac = d.attr(el, 'autocomplete');
  return ac ? ac.toLowerCase().trim().split(/\s+/).slice(-3) : [];
}

/**
 * The texts of an input's labels: a label for= its id, a label around it, or one just before it (single-page
 * apps often put one beside the input without for=). Not input.labels: Chromium walks the whole document
 * for each input's list, which on a page of thousands of inputs costs seconds.
 */
function labelTexts(d: Dom, el: Element, labelFor: Map<string, string>): string[] {
  const out: string[] = [];
  const id = d.attr(el, 'id');
  const byId = id ? labelFor.get(id) : undefined;
  if (byId) out.push(byId);
  for (let a = composedParent(d, el), i = 0; a && i < 3; a = composedParent(d, a), i++) {
    if (d.tag(a) === 'label') {
      out.push(d.text(a));
      break;
    }
  }
  const prev = out.length ? null : d.prev(el);
  if (prev && d.tag(prev) === 'label') out.push(d.text(prev));
  return out;
}

/** Label texts by the id they are for, in every tree of the page. */
function labelMap(d: Dom, roots: Node[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const root of roots) {
    if (map.size >= MAX_FIELDS) break;
    for (const label of d.qsa(root, 'label[for]', MAX_FIELDS - map.size)) {
      const id = d.attr(label, 'for');
      if (id && !map.has(id)) map.set(id, d.text(label));
    }
  }
  return map;
}

function describeField(d: Dom, el: Element, labelFor: Map<string, string>): Field {
  const tag = d.tag(el);
  const type = tag === 'input' ? (d.inputType(el) || 'text').toLowerCase() : tag;
  const ac = autocompleteTokens(d, el);
  const acLast = ac[ac.length - 1] ?? '';
  const newPassword = ac.includes('new-password');
  const currentPassword = ac.includes('current-password');
  const password = type === 'password' || ((newPassword || currentPassword) && TEXT_TYPES.has(type));
  const field: Field = {
    el,
    tag,
    type,
    visible: type !== 'hidden' && d.visible(el),
    password,
    newPassword,
    currentPassword,
    identity: false,
    reg: null,
    notAccount: tag === 'textarea' || type === 'search',
    gate: false,
  };
  if (password) {
    const hint = norm(
      [
        d.attr(el, 'name'),
        d.attr(el, 'id'),
        d.attr(el, 'placeholder'),
        d.attr(el, 'aria-label'),
        ...labelTexts(d, el, labelFor),
      ]
        .filter(Boolean)
        .join(' '),
    );
    field.gate = GATE.test(hint);
    return field;
  }
  if (
    field.notAccount ||
    (tag === 'input' && !TEXT_TYPES.has(type) && type !== 'date' && type !== 'hidden')
  ) {
    return field;
  }
  const words = new Set([
    ...tokens(d.attr(el, 'name') ?? ''),
    ...tokens(d.attr(el, 'id') ?? ''),
    ...tokens(d.attr(el, 'data-testid') ?? ''),
  ]);
  const label = norm(
    [...labelTexts(d, el, labelFor), d.attr(el, 'aria-label') ?? '', d.attr(el, 'placeholder') ?? ''].join(
      ' | ',
    ),
  );
  if (
    acLast.startsWith('address') ||
    acLast === 'street-address' ||
    acLast === 'postal-code' ||
    acLast.startsWith('country') ||
    acLast.startsWith('cc-')
  ) {
    field.notAccount = true;
    return field;
  }
  if (acLast === 'username' || acLast === 'email' || acLast === 'webauthn' || type === 'email') {
    field.identity = true;
    return field;
  }
  if (acLast === 'given-name') field.reg = 'given-name';
  else if (acLast === 'family-name') field.reg = 'family-name';
  else if (acLast.startsWith('bday')) field.reg = 'birth-date';
  else if (acLast.startsWith('tel')) field.reg = 'phone';
  if (field.reg) return field;
  const has = (set: Set<string>) => {
    for (const w of words) if (set.has(w)) return true;
    return false;
  };
  if (has(IDENTITY_TOKENS) || LABEL_IDENTITY.test(label)) field.identity = true;
  else if (has(NOT_ACCOUNT_TOKENS)) field.notAccount = true;
  else if (has(GIVEN_TOKENS) || LABEL_GIVEN.test(label)) field.reg = 'given-name';
  else if (has(FAMILY_TOKENS) || LABEL_FAMILY.test(label)) field.reg = 'family-name';
  else if (has(BIRTH_TOKENS) || LABEL_BIRTH.test(label)) field.reg = 'birth-date';
  else if (type === 'tel' || has(PHONE_TOKENS) || LABEL_PHONE.test(label)) field.reg = 'phone';
  // "user" alone names a login field, but in user[first_name] it is only the model's name.
  else if (words.has('user')) field.identity = true;
  return field;
}

// Groups: a <form>, or for inputs outside any form the nearest ancestor that also holds an action
// (a button with a label), the way single-page apps lay out a form of divs.

interface Group {
  root: Element;
  isForm: boolean;
  fields: Field[];
}

interface Page {
  fields: Field[];
  groups: Group[];
  roots: Node[];
}

const FIELD_SELECTOR = 'input,select,textarea';
const PASSWORD_SELECTOR =
  'input[type=password i],input[autocomplete~="new-password" i],input[autocomplete~="current-password" i]';
const ACTION_SELECTOR =
  'button,input[type=submit],input[type=button],input[type=image],[role=button],a:not([href]),a[href^="#"],a[href^="javascript:"]';
const TOGGLE_TEXT =
  /^(?:show|hide|toggle|reveal|view|close|clear|anzeigen|verbergen|ausblenden|schliessen|afficher|masquer|fermer|mostrar|ocultar|ver|cerrar)\b/;

function controlText(d: Dom, el: Element): string {
  const tag = d.tag(el);
  let t = '';
  if (tag === 'input') t = d.attr(el, 'value') ?? d.attr(el, 'alt') ?? '';
  else t = d.text(el);
  t = norm(t);
  if (!t) t = norm(d.attr(el, 'aria-label') ?? '');
  // A button inside a component's shadow root shows its host's text through a <slot>.
  if (!t && d.qsa(el, 'slot', 1).length) {
    const host = d.host(rootNode(d, el));
    if (host) t = norm(d.text(host));
  }
  return t.length > 60 ? '' : t;
}

function collectRoots(d: Dom, doc: Document): Node[] {
  const roots: Node[] = [doc];
  let budget = MAX_ELEMENTS_SCANNED_FOR_SHADOW;
  for (let i = 0; i < roots.length && budget > 0; i++) {
    const all = d.qsa(roots[i] as Node, '*', budget);
    budget -= all.length;
    for (const el of all) {
      const sr = d.shadow(el);
      if (sr) roots.push(sr);
    }
  }
  return roots;
}

function analyse(doc: Document): Page {
  const d = dom();
  const roots = collectRoots(d, doc);
  const labelFor = labelMap(d, roots);
  const fields: Field[] = [];
  const seen = new Set<Element>();
  const add = (el: Element) => {
    if (seen.has(el)) return;
    seen.add(el);
    const f = describeField(d, el, labelFor);
    if (f.type !== 'submit' && f.type !== 'button' && f.type !== 'image' && f.type !== 'reset')
      fields.push(f);
  };
  // Password fields and their forms first, so that a login form after thousands of other inputs (a
  // spreadsheet, a long settings page) is still seen whole within the cap.
  for (const root of roots) {
    for (const pw of d.qsa(root, PASSWORD_SELECTOR, 50)) {
      add(pw);
      const form = formAround(d, pw);
      if (form) for (const el of d.qsa(form, FIELD_SELECTOR, 200)) add(el);
    }
  }
  for (const root of roots) {
    if (fields.length >= MAX_FIELDS) break;
    for (const el of d.qsa(root, FIELD_SELECTOR, MAX_FIELDS - fields.length)) add(el);
  }
  const visible = fields.filter((f) => f.visible);
  const forms = visible.map((f) => formAround(d, f.el));
  // Only inputs outside any form need the page's action controls to be grouped: skip that scan
  // (the costly part on a huge page) when every field is in a form.
  const actionAncestors = forms.includes(null) ? findActionAncestors(d, roots) : new Set<Element>();
  const byRoot = new Map<Element, Group>();
  visible.forEach((f, i) => {
    const root = forms[i] ?? formLikeRoot(d, f.el, actionAncestors);
    let g = byRoot.get(root);
    if (!g) {
      g = { root, isForm: d.tag(root) === 'form', fields: [] };
      byRoot.set(root, g);
    }
    g.fields.push(f);
  });
  return { fields, groups: [...byRoot.values()], roots };
}

/** Every ancestor (up to GROUP_CLIMB levels) of a control that could send a form: a labelled button. */
function findActionAncestors(d: Dom, roots: Node[]): Set<Element> {
  const ancestors = new Set<Element>();
  let actions = 0;
  for (const root of roots) {
    if (actions >= MAX_ACTIONS) break;
    for (const el of d.qsa(root, ACTION_SELECTOR, MAX_ACTIONS - actions)) {
      actions++;
      const t = controlText(d, el);
      if (t.length < 2 || TOGGLE_TEXT.test(t)) continue;
      let a: Element | null = el;
      for (let i = 0; a && i <= GROUP_CLIMB; i++, a = composedParent(d, a)) {
        if (ancestors.has(a)) break;
        ancestors.add(a);
      }
    }
  }
  return ancestors;
}

/** The field's form: its owner, or a <form> around it in the composed tree (a component inside a form). */
function formAround(d: Dom, el: Element): Element | null {
  const form = d.formOf(el);
  if (form) return form;
  for (let a = composedParent(d, el), i = 0; a && i < 64; a = composedParent(d, a), i++) {
    if (d.tag(a) === 'form') return a;
  }
  return null;
}

/** For a field outside any form: the nearest ancestor that also holds an action, within GROUP_CLIMB levels. */
function formLikeRoot(d: Dom, el: Element, actionAncestors: Set<Element>): Element {
  let last: Element = el;
  for (let a = composedParent(d, el), i = 0; a && i < GROUP_CLIMB; a = composedParent(d, a), i++) {
    const tag = d.tag(a);
    if (tag === 'body' || tag === 'html') break;
    last = a;
    if (actionAncestors.has(a)) return a;
  }
  return last;
}

// What a group says about itself

interface GroupFacts {
  passwords: number;
  /** Password fields other than passcodes: what an account would be created with. */
  accountPasswords: number;
  /** The group speaks of a meeting, a call or a class: "Join" there is no sign-up. */
  meeting: boolean;
  identities: number;
  reg: Set<RegKind>;
  notAccount: boolean;
  /** Texts of the controls that send the group: submit buttons, or in a form-like group, its buttons. */
  submits: string[];
  headings: string[];
  /** Whether the headings are the group's own (inside it) or the nearest ones before it. */
  headingsInside: boolean;
  forgot: boolean;
  newsletter: boolean;
  /** Sent with "Save" or "Update": the settings of an account that exists. */
  saves: boolean;
}

function isHeading(d: Dom, el: Element): boolean {
  const tag = d.tag(el);
  return tag === 'h1' || tag === 'h2' || tag === 'h3' || d.attr(el, 'role') === 'heading';
}

const HEADING_SELECTOR = 'h1,h2,h3,[role=heading]';

/** The heading that titles the group: inside it before its first field, else the nearest one before it. */
function titleHeadings(d: Dom, page: Page, g: Group): { texts: string[]; inside: boolean } {
  const first = g.fields[0]?.el;
  const out: string[] = [];
  for (const h of deepQsa(d, page, g.root, HEADING_SELECTOR, 20)) {
    if (!first || d.before(h, first)) out.push(norm(d.text(h)));
  }
  if (out.length) return { texts: out.slice(-2), inside: true };
  let node: Element | null = g.root;
  for (let level = 0; node && level < HEADING_CLIMB; level++, node = composedParent(d, node)) {
    const tag = d.tag(node);
    if (tag === 'body' || tag === 'html') break;
    let scanned = 0;
    for (let sib = d.prev(node); sib && scanned < 12; sib = d.prev(sib), scanned++) {
      const h = isHeading(d, sib) ? sib : d.last(sib, HEADING_SELECTOR);
      if (h) return { texts: [norm(d.text(h))], inside: false };
    }
  }
  return { texts: [], inside: false };
}

/** qsa on the element and on the open shadow roots of the components inside it (or of itself). */
function deepQsa(d: Dom, page: Page, root: Element, selector: string, cap: number): Element[] {
  const out = d.qsa(root, selector, cap);
  let shadows = 0;
  for (const sr of page.roots) {
    if (out.length >= cap || shadows >= MAX_SHADOW_QUERIES) break;
    const host = d.host(sr);
    if (!host) continue;
    let inside = false;
    for (let a: Element | null = host, i = 0; a && i < 64; a = composedParent(d, a), i++) {
      if (a === root) {
        inside = true;
        break;
      }
    }
    if (!inside) continue;
    shadows++;
    out.push(...d.qsa(sr, selector, cap - out.length));
  }
  return out;
}

function factsOf(d: Dom, page: Page, g: Group): GroupFacts {
  const facts: GroupFacts = {
    passwords: 0,
    accountPasswords: 0,
    meeting: false,
    identities: 0,
    reg: new Set(),
    notAccount: false,
    submits: [],
    headings: [],
    headingsInside: false,
    forgot: false,
    newsletter: false,
    saves: false,
  };
  for (const f of g.fields) {
    if (f.password) {
      facts.passwords++;
      if (!f.gate) facts.accountPasswords++;
    } else if (f.identity) facts.identities++;
    else if (f.reg) facts.reg.add(f.reg);
    if (f.notAccount) facts.notAccount = true;
  }
  // A phone number as the only identifier is a login name, not a registration detail.
  if (facts.identities === 0) facts.reg.delete('phone');
  const role = d.attr(g.root, 'role');
  if (role === 'search' || d.tag(g.root) === 'search') facts.notAccount = true;
  const submits: string[] = [];
  const others: { el: Element; text: string }[] = [];
  const labels: string[] = [];
  // Links that lead elsewhere only tell whether this is a login ("Forgot password?"); a form that wraps a
  // whole page (ASP.NET) has hundreds of them, so they are looked at apart from its buttons.
  for (const el of deepQsa(d, page, g.root, 'a[href]:not([href^="#"]):not([href^="javascript:"])', 100)) {
    if (FORGOT.test(controlText(d, el))) {
      facts.forgot = true;
      break;
    }
  }
  for (const el of deepQsa(d, page, g.root, `${ACTION_SELECTOR},label`, 300)) {
    const tag = d.tag(el);
    if (tag === 'label') {
      labels.push(norm(d.text(el)));
      continue;
    }
    const t = controlText(d, el);
    if (!t) continue;
    if (FORGOT.test(t)) facts.forgot = true;
    // ACTION_SELECTOR's links are the ones that act as buttons (no href, "#", "javascript:").
    if (tag === 'a') {
      others.push({ el, text: t });
      continue;
    }
    const type = (d.attr(el, 'type') ?? '').toLowerCase();
    const submit =
      tag === 'button' ? type === '' || type === 'submit' : type === 'submit' || type === 'image';
    if (g.isForm && submit) submits.push(t);
    else others.push({ el, text: t });
  }
  // A form is sent by its submit buttons. Without any (a group of divs, a form sent by script) it is sent
  // by its primary action: the first labelled button after its last field. Tabs above the fields and
  // "Log in instead" links after the primary action say nothing about the form.
  if (submits.length) facts.submits = submits;
  else {
    const last = g.fields[g.fields.length - 1]?.el;
    const primary = others.find(
      (o) =>
        o.text.length >= 2 &&
        !TOGGLE_TEXT.test(o.text) &&
        !SOCIAL.test(o.text) &&
        !FORGOT.test(o.text) &&
        !DISMISS.test(o.text) &&
        (!last || d.before(last, o.el)) &&
        d.visible(o.el),
    );
    facts.submits = primary ? [primary.text] : [];
  }
  const title = titleHeadings(d, page, g);
  facts.headings = title.texts;
  facts.headingsInside = title.inside;
  const said = [...facts.submits, ...facts.headings, ...labels].join(' | ');
  facts.newsletter = NEWSLETTER.test(said);
  facts.meeting = MEETING.test(said) || g.fields.some((f) => f.gate);
  const actions = [...submits, ...others.map((o) => o.text)];
  facts.saves = actions.some((t) => SAVE.test(t)) && !actions.some(isSignupText);
  return facts;
}

function loginEvidence(f: GroupFacts): boolean {
  return f.forgot || f.submits.some(isLoginText) || f.headings.some(isLoginText);
}

// Layer 1: the URL

const URL_WORDS = new Set([
  'signup',
  'register',
  'registration',
  'join',
  'createaccount',
  'newaccount',
  'enroll',
  'enrol',
  'registrieren',
  'registrierung',
  'kontoerstellen',
  'kontoanlegen',
  'inscription',
  'sinscrire',
  'creeruncompte',
  'creercompte',
  'registro',
  'registrarse',
  'crearcuenta',
  'crearunacuenta',
]);
const QUERY_KEYS = new Set([
  'action',
  'mode',
  'view',
  'page',
  'tab',
  'step',
  'flow',
  'screen',
  'form',
  'type',
  'do',
  'op',
  'show',
  'modal',
  'dialog',
  'title',
  'intent',
]);

function urlWord(segment: string): boolean {
  let s = segment;
  try {
    s = decodeURIComponent(s);
  } catch {}
  s = s
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/\.(?:php|html?|aspx?|jsp|do|action|cgi)$/, '');
  const tail = s.slice(s.lastIndexOf(':') + 1);
  return URL_WORDS.has(s.replace(/[-_.'\s]+/g, '')) || URL_WORDS.has(tail.replace(/[-_.'\s]+/g, ''));
}

function pathMatch(path: string): string | null {
  for (const seg of path.split('/')) if (seg && urlWord(seg)) return seg;
  return null;
}

function queryMatch(query: URLSearchParams): string | null {
  for (const [key, value] of query) {
    if (!value && urlWord(key)) return key;
    // A value holding a path or URL (?next=/register) is where the page goes next, not what it is.
    if (QUERY_KEYS.has(key.toLowerCase()) && !/[/?&=]/.test(value) && urlWord(value))
      return `${key}=${value}`;
  }
  return null;
}

function urlLayer(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const seg = pathMatch(u.pathname);
  if (seg) return `path ${u.pathname.slice(0, 60)}`;
  const q = queryMatch(u.searchParams);
  if (q) return `query ${q.slice(0, 60)}`;
  const hash = u.hash.replace(/^#!?/, '');
  if (hash) {
    const [hashPath = '', hashQuery = ''] = hash.split('?', 2);
    if (hashPath.startsWith('/') ? pathMatch(hashPath) : urlWord(hashPath))
      return `hash #${hash.slice(0, 60)}`;
    if (hashQuery && queryMatch(new URLSearchParams(hashQuery))) return `hash #${hash.slice(0, 60)}`;
  }
  return null;
}

// The layers

interface Verdict {
  match: SignupMatch | null;
  page: Page;
  facts: Map<Group, GroupFacts>;
}

function quote(t: string): string {
  return `"${t.slice(0, 40)}"`;
}

function evaluate(doc: Document, url: string): Verdict {
  const d = dom();
  const page = analyse(doc);
  const facts = new Map<Group, GroupFacts>();
  for (const g of page.groups) facts.set(g, factsOf(d, page, g));
  const visible = page.fields.filter((f) => f.visible);
  const passwords = visible.filter((f) => f.password);
  const accountPasswords = passwords.filter((f) => !f.gate).length;
  const done = (match: SignupMatch | null): Verdict => ({ match, page, facts });

  // A form a person could create an account with: one that has a password, or an e-mail/username
  // field and is no search, contact, checkout or newsletter form.
  const accountLike = (f: GroupFacts) =>
    f.accountPasswords > 0 ||
    ((f.identities > 0 || f.reg.size > 0) && !f.notAccount && !f.newsletter && !f.saves && !f.meeting);

  const urlReason = urlLayer(url);
  if (urlReason) {
    const loginPage =
      passwords.length === 1 &&
      !passwords[0]?.newPassword &&
      [...facts].some(([g, f]) => g.fields.includes(passwords[0] as Field) && loginEvidence(f));
    if (!loginPage && [...facts.values()].some(accountLike))
      return done({ layer: 'url', index: 1, reason: urlReason });
  }

  const fresh = visible.find((f) => f.newPassword);
  if (fresh)
    return done({
      layer: 'new-password',
      index: 2,
      reason: `${fieldName(d, fresh.el)} autocomplete=new-password`,
    });

  for (const [g, f] of facts) {
    if (f.passwords >= 2)
      return done({
        layer: 'confirm-password',
        index: 3,
        reason: `${f.passwords} password fields in ${describeRoot(d, g)}`,
      });
  }

  for (const [g, f] of facts) {
    if (!f.reg.size || (f.accountPasswords === 0 && f.identities === 0)) continue;
    // Without a password, first name + e-mail is as often a newsletter: two registration details are
    // needed (or a birth date), and no sign of a search, contact, checkout, newsletter or profile form.
    if (
      f.accountPasswords === 0 &&
      (f.notAccount || f.newsletter || f.saves || f.meeting || (f.reg.size < 2 && !f.reg.has('birth-date')))
    ) {
      continue;
    }
    if (f.passwords <= 1 && loginEvidence(f)) continue;
    return done({
      layer: 'registration-fields',
      index: 4,
      reason: `${[...f.reg].join(', ')} in ${describeRoot(d, g)}`,
    });
  }

  for (const [, f] of facts) {
    if (!accountLike(f) || loginEvidence(f)) continue;
    // A form without a password (an e-mail-only first step) counts only on a page without an account
    // password field, and only when it speaks of an account: "Sign up" beside an e-mail field is as
    // often a newsletter, and beside a login form it is the way to the sign-up page.
    const passwordless = f.accountPasswords === 0;
    if (passwordless && accountPasswords > 0) continue;
    const plain = f.meeting ? isSignupTextNoJoin : isSignupText;
    const test = passwordless ? (t: string) => plain(t) && STRONG.test(t) : plain;
    const submit = f.submits.find(test);
    if (submit) return done({ layer: 'page-text', index: 5, reason: `button ${quote(submit)}` });
    // A login-shaped form (one password, nothing else to register) next to a marketing heading ("Join
    // 2 million learners") is a login: there a heading counts only when it is the form's own and says
    // more than "join", or when it speaks of an account.
    const loginShaped = f.accountPasswords === 1 && f.reg.size === 0;
    const headingTest = !loginShaped
      ? test
      : f.headingsInside
        ? (t: string) => isSignupTextNoJoin(t)
        : (t: string) => isSignupText(t) && STRONG.test(t);
    const heading = f.headings.find(headingTest);
    if (heading) return done({ layer: 'page-text', index: 5, reason: `heading ${quote(heading)}` });
  }
  return done(null);
}

function fieldName(d: Dom, el: Element): string {
  const name = d.attr(el, 'name') || d.attr(el, 'id');
  return name ? `field ${name.slice(0, 30)}` : 'a field';
}

function describeRoot(d: Dom, g: Group): string {
  const id = d.attr(g.root, 'id');
  return `${g.isForm ? 'form' : 'group'}${id ? `#${id.slice(0, 30)}` : ''}`;
}

/** The five layers of SPEC in order, stopping at the first match; null when the page is not a sign-up page. */
export function detectSignup(doc: Document, url: string): SignupMatch | null {
  return evaluate(doc, url).match;
}

/** A login form: exactly one password field on the page (open shadow roots included), none with autocomplete=new-password, and detectSignup is null. */
export function findLoginForm(doc: Document, url: string): LoginForm | null {
  const d = dom();
  const { match, page } = evaluate(doc, url);
  if (match) return null;
  const visible = page.fields.filter((f) => f.visible);
  const passwords = visible.filter((f) => f.password);
  const password = passwords[0];
  if (passwords.length !== 1 || !password || password.newPassword || password.tag !== 'input') return null;
  const group = page.groups.find((g) => g.fields.includes(password));
  if (!group) return null;
  return {
    root: group.root,
    password: password.el as HTMLInputElement,
    username: pickUsername(d, group, password, page),
  };
}

function pickUsername(d: Dom, g: Group, password: Field, page: Page): HTMLInputElement | null {
  const candidates = g.fields.filter(
    (f) =>
      f.tag === 'input' && !f.password && !f.notAccount && (TEXT_TYPES.has(f.type) || f.type === 'email'),
  );
  const rank = (f: Field) => {
    const ac = autocompleteTokens(d, f.el);
    if (ac.includes('username')) return 0;
    if (ac.includes('email') || f.type === 'email') return 1;
    if (f.identity) return 2;
    if (f.reg === 'phone') return 3;
    return 4;
  };
  const before = candidates.filter((f) => d.before(f.el, password.el));
  const pool = before.length ? before : candidates;
  let best: Field | null = null;
  for (const f of pool) {
    // Among equals the one nearest the password field wins: later in document order.
    if (!best || rank(f) <= rank(best)) best = f;
  }
  if (best) return best.el as HTMLInputElement;
  // A two-step login keeps the name typed in step one in a hidden username field.
  const hidden = page.fields.find(
    (f) =>
      !f.visible &&
      f.tag === 'input' &&
      f.identity &&
      !f.password &&
      d.formOf(f.el) === d.formOf(password.el),
  );
  return hidden ? (hidden.el as HTMLInputElement) : null;
}

/** The username or e-mail typed into the login form. Reads ONLY the username field's value: never the password field's value. */
export function loginUsername(form: LoginForm): string | null {
  const d = dom();
  const field = form.username;
  if (!field || field === form.password || d.inputType(field) === 'password') return null;
  const value = d.value(field).trim();
  return value ? value.slice(0, 256) : null;
}
