import { IntlMessageFormat } from 'intl-messageformat';

/**
 * Every sentence a host reads about a guest: the checks' `value` and `help`, their findings
 * (which become `top_risks`), the recommendations, the verdict's reason and the background-check
 * report. One place, in ICU message format, so they read alike and a test can hold them to the
 * rule that they speak to a host: what was found and what to do, never a command, a setting,
 * a library or an algorithm. What an operator must configure goes to the logs, the readiness
 * endpoint and docs/; see docs/verdicts.md for how the findings combine.
 */
export const HOST_MESSAGES = {
  // Any check
  'check.disabled.value': 'Turned off for this account',
  'check.disabled.help': 'Turn it on in the screening settings to use it.',
  'check.pending.value': 'Not screened yet',
  'check.pending.help': 'Screening is on its way; this check runs with it.',
  'check.no_action': 'No action needed.',

  // Verdict
  'verdict.value': '{level, select, green {Low risk} yellow {Slight risk} orange {Elevated risk} other {High risk}} ({tolerance, select, low {low} high {high} other {balanced}} risk tolerance)',
  'verdict.help.declined': 'Decline the booking, or verify the guest thoroughly before arrival.',
  'verdict.help.review': 'Look at the risks listed before accepting the guest.',
  'verdict.help.pending': 'The verdict is final once the guest completes the guest portal.',
  'verdict.reason.verified': 'No risk found in the checks that could run',
  'verdict.reason.verified_noted': 'Accepted; noted: {risks}',
  'verdict.reason.review': 'Needs a look: {risks}',
  'verdict.reason.declined': 'High risk: {risks}',
  'verdict.reason.rule_declined': 'Declined by your rule {rules}',
  'verdict.reason.rule_approved': 'Approved by your rule {rules}',
  'verdict.reason.rule_approved_despite': 'Approved by your rule {rules} despite: {risks}',
  'verdict.reason.rule_review': 'Sent to review by your rule {rules}',
  'verdict.reason.waiting': 'Waiting for the guest to complete the guest portal',
  'verdict.reason.waiting_so_far': 'Waiting for the guest to complete the guest portal; so far: {risks}',
  'verdict.reason.unscreened': 'Not screened yet: screening is on its way',
  'verdict.reason.manual': 'Manually {decision, select, approve {approved} other {declined}}; screening: {screening}',
  'verdict.rule_fired': 'Your rule “{name}” fired ({action, select, decline {decline} review {review} other {approve}})',
  'verdict.pending_recommendation': 'Wait for screening to finish, or decide yourself.',

  // Identity document
  'id.missing.value': 'No identity document yet',
  'id.missing.help': 'The guest has not provided an identity document yet; the guest portal asks for one.',
  'id.ok.value': 'Document valid through the stay',
  'id.expires_before_checkout': 'Identity document expires on {expiry}, before check-out on {checkout}',
  'id.expires_before_checkout.do': 'Ask the guest for a document valid through the stay.',
  'id.under_minimum_age': 'Guest is {age}, under your minimum age of {minimum}',
  'id.under_minimum_age.do': 'Decline, or ask an adult to make the booking.',
  'id.mrz_unreadable': 'The machine-readable lines of the document cannot be read ({problem})',
  'id.mrz_unreadable.do': 'Ask the guest for a clear, complete photo of the document.',
  'id.mrz_problem.length': 'they are not the length a passport or ID card has',
  'id.mrz_problem.characters': 'they hold characters a document never prints there',
  'id.mrz_problem.format': 'they match no passport or ID card layout',
  'id.mrz_check_digits': 'The check digits of the document do not add up ({fields}): the document may be forged or mistyped',
  'id.mrz_check_digits.do': 'Verify the document in person before the guest arrives.',
  'id.mrz_field.documentNumber': 'document number',
  'id.mrz_field.birthDate': 'date of birth',
  'id.mrz_field.expirationDate': 'expiry date',
  'id.mrz_field.personalNumber': 'personal number',
  'id.mrz_field.composite': 'the whole line',
  'id.mrz_number_mismatch': 'Document number {given} differs from the one printed in the machine-readable lines ({printed})',
  'id.mrz_number_mismatch.do': 'Confirm the document number with the guest.',
  'id.name_mismatch': 'Name on the document ({document}) does not match the guest ({guest})',
  'id.name_mismatch.do': 'Confirm who is staying: the document may belong to someone else.',
  'id.help.review': 'Look at the identity document before accepting the guest.',
  'id.read.value': 'Document read from its photo: {name}, valid through the stay',
  'id.photo_unreadable': 'The photo of the identity document could not be read ({problems})',
  'id.photo_unreadable.do': 'Ask the guest for a new photo: the portal tells them how to take it.',
  'id.photo_problem.screen_photo': 'a photo of a screen, not of the document',
  'id.photo_problem.too_dark': 'too dark',
  'id.photo_problem.blurred': 'blurred',
  'id.photo_problem.glare': 'glare on the document',
  'id.photo_problem.zone_cut_off': 'the lines at the bottom cut off',
  'id.photo_problem.no_document': 'no document in the picture',
  'id.photo_problem.zone_unreadable': 'the lines at the bottom unreadable',
  'id.read_check_digits': 'Read from the photo, the check digits of the document do not add up ({fields}): a misread or an altered document',
  'id.read_check_digits.do': 'Ask the guest for a sharper photo first; if it still fails, see the document in person.',
  'id.read_name_mismatch': 'The document read from the photo is in the name of {document}, not the guest {guest}',
  'id.read_name_mismatch.do': 'Confirm who is staying: the document belongs to someone else, or the booking is in another name.',
  'id.printed_name_mismatch': 'The name printed on the document, {page}, is not the name in its machine-readable lines, {zone}: a misread or an altered document',
  'id.printed_name_mismatch.do': 'Ask the guest for a sharper photo of the document; if the two names still differ, see the document itself before check-in.',
  'id.read_name_lost': 'The name read from the photo, {name}, is missing a letter: its machine-readable line has a gap where one was lost in reading, which no check digit sees',
  'id.read_name_lost.do': 'Ask the guest for a sharper photo of the document, or compare the name with the photo of it on this page.',
  'id.name_zone_only': 'The name {name} was read from the machine-readable lines of the document only, which have no check digit for a name: nothing printed on the document was read to confirm it',
  'id.name_zone_only.do': 'Compare the name with the photo of the document on this page.',
  'id.screen_photo': 'The document was photographed on a screen, not in hand: the photo has the colour bands a screen makes and print does not',
  'id.screen_photo.do': "Ask the guest for a photo of the document itself; a picture on a screen can be of anyone's document.",
  'id.screen_hint': 'The photo of the document shows faint colour bands of the kind a photographed screen makes, though some print makes them too: whether it is of a screen cannot be told',
  'id.screen_hint.do': 'Look at the photo on this page: a document in hand shows its edges and the surface it lies on; a screen shows its frame, glare or pixels.',
  'id.read_number_mismatch': 'The guest typed document number {typed}; the photo reads {read}',
  'id.read_number_mismatch.do': 'Confirm the document number with the guest.',
  'id.read_birth_mismatch': 'The guest typed {typed} as date of birth; the document reads {read}',
  'id.read_birth_mismatch.do': 'Confirm the date of birth with the guest.',
  'id.type_not_accepted': 'The document is {type}, which you do not accept',
  'id.type_not_accepted.do': 'Ask the guest for a document you accept.',
  'id.read_face.value': 'Document read from its photo: {name}, valid through the stay; the guest’s selfie is {strength, select, very_likely {very likely} other {likely}} the person on it',
  'id.face_mismatch': 'The guest’s selfie is not the person on the document (similarity {similarity}; the same person from {threshold})',
  'id.face_mismatch.do': 'See the guest and the document in person before check-in: the document may be someone else’s.',
  'id.face_unclear': 'Whether the guest’s selfie is the person on the document cannot be told: {why}',
  'id.face_unclear.do': 'Ask the guest for a new selfie in the portal; if it still cannot be told, compare the two photos yourself on this page.',
  'id.face_why.no_document_face': 'no face was found on the document’s photo',
  'id.face_why.no_face': 'no face was found in the selfie',
  'id.face_why.several_faces': 'the selfie shows several faces',
  'id.face_why.face_too_small': 'the face is too small in the selfie',
  'id.face_why.too_dark': 'the selfie is too dark',
  'id.face_why.eyes_closed': 'the eyes are closed in the selfie',
  'id.face_why.too_close': 'the faces are neither close enough to be one person nor far enough apart to be two',
  'id.selfie_copy': 'The selfie looks like the document held up to the camera, not the guest’s own face',
  'id.selfie_copy.do': 'Ask the guest for a new selfie taken with the portal’s camera, or see them in person.',
  'id.selfie_screen': 'The selfie was taken of a screen: the photo has the colour bands a screen makes',
  'id.selfie_screen.do': 'Ask the guest for a new selfie taken with the portal’s camera.',
  'id.selfie_still': 'In the camera’s frames, {what}: the selfie may be a photo held up to the camera',
  'id.selfie_still.do': 'Look at the selfie beside the document; ask for a new one if in doubt.',
  'id.selfie_still.head_turn': 'the head did not turn',
  'id.selfie_still.blink': 'the eyes did not blink',
  'id.doc_type.passport': 'a passport',
  'id.doc_type.id_card': 'an identity card',
  'id.doc_type.visa': 'a visa',

  // Fraud signals
  'fraud.no_contact.value': 'No e-mail or phone to check',
  'fraud.no_contact.help': "Collect the guest's contact details.",
  'fraud.none.value': 'No fraud signals',
  'fraud.some.value': '{count, plural, one {# fraud signal} other {# fraud signals}}',
  'fraud.help.review': 'Look at the signals listed.',
  'fraud.disposable_email': 'E-mail uses a throwaway address ({domain})',
  'fraud.disposable_email.do': 'Ask the guest for a permanent e-mail address.',
  'fraud.free_webmail': 'E-mail is a free webmail address ({domain}); normal for guests',
  'fraud.invalid_phone': 'Phone number {phone} is not a number that can be called',
  'fraud.invalid_phone.do': 'Call or text the guest to confirm a working number.',
  'fraud.phone_type': 'Phone number is {type, select, voip {an internet (VoIP) line} premium_rate {a premium-rate line} other {a shared-cost line}}',
  'fraud.last_minute': 'Booked less than a day before check-in',
  'fraud.last_minute.do': 'Last-minute bookings carry more risk: verify the guest before arrival.',
  'fraud.long_stay': '{nights} nights, far longer than your usual {usual}',
  'fraud.expensive': 'Total price {price} is over four times your usual booking ({usual})',
  'fraud.velocity': 'The same e-mail or phone made {count, plural, one {# other reservation} other {# other reservations}} in the last 24 hours',
  'fraud.velocity.do': 'Several bookings from one contact in a day: check they are genuine.',
  'fraud.ip_threat': 'A payment came from {ip}, an address on a public list of anonymising services and abusive hosts',
  'fraud.ip_threat.do': 'The payment came through an anonymising service or a known abusive host: confirm the booking with the guest directly.',

  // Payment
  'payment.none.value': 'No payment yet',
  'payment.none.help': 'The payment is part of the screening once it is made.',
  'payment.ok.value': 'Payments look normal',
  'payment.repeated_failures': '{count} failed payment attempts',
  'payment.repeated_failures.do': 'Several failed payments: confirm the card with the guest.',
  'payment.failure': 'A payment attempt failed ({message})',
  'payment.failure_recovered': '{count, plural, one {A payment attempt failed} other {# payment attempts failed}} before a later one succeeded',
  'payment.3ds_failed': 'The card holder failed the bank’s identity check (3-D Secure)',
  'payment.3ds_failed.do': 'Do not accept this card: ask the guest to pay with a card they can verify.',
  'payment.3ds_recovered': 'A first bank identity check (3-D Secure) failed; a later one succeeded',
  'payment.country_mismatch': 'Card issued in {card} but billing country is {billing}',
  'payment.country_mismatch.do': 'Ask why the card and billing countries differ.',
  'payment.ip_country_mismatch': 'Payment made from {ip} in {at}; card issued in {card}, billing country {billing}',
  'payment.ip_country_mismatch.do': 'The payer was somewhere other than the card’s country: confirm the booking with the guest.',
  'payment.name_mismatch': 'Name on card ({card}) differs from the guest ({guest})',
  'payment.name_mismatch.do': 'Someone else’s card: confirm the card holder knows about the booking.',
  'payment.help.review': 'Look at the payment signals listed.',

  // Blocklist
  'blocklist.none.value': 'Not on your blocklist',
  'blocklist.exact': "Guest's {fields} {count, plural, one {matches} other {match}} your blocklist entry ({reason})",
  'blocklist.exact.do': 'Decline: this guest is on your blocklist.',
  'blocklist.phone': "Guest's phone number matches your blocklist entry ({reason}); phone numbers change hands",
  'blocklist.phone.do': 'Check whether this is the blocked person before accepting.',
  'blocklist.name': "Guest's name is close to your blocklist entry “{name}” ({reason})",
  'blocklist.name_same': "Guest's name is the same as your blocklist entry “{name}” ({reason})",
  'blocklist.name.do': 'Check whether this is the blocked person or someone with the same name.',
  'blocklist.field.email': 'e-mail',
  'blocklist.field.phone': 'phone',
  'blocklist.field.document': 'document number',

  // Sanctions
  'sanctions.none_installed.value': 'Not checked: no sanctions list is installed',
  'sanctions.none_installed.help': 'This check does not count for or against the guest until a sanctions list is installed.',
  'sanctions.clear.value': 'No match on {lists}',
  'sanctions.clear_dismissed.value': 'No match on {lists}; {names} set aside by you as a different person',
  'sanctions.found.value': '{count, plural, one {# match} other {# matches}} on {lists}',
  'sanctions.list': '{source} of {date}',
  'sanctions.confirmed': "Probable match: the guest's name and {confirmedBy, select, document {document number} other {date of birth}} match {listed} on {source}",
  'sanctions.confirmed.do': 'Decline: the guest is on a sanctions list. Do not take payment; ask your legal adviser before any contact.',
  'sanctions.close_confirmed': "Probable match: the guest's name is close to {listed} on {source}, and the {confirmedBy, select, document {document number} other {date of birth}} matches",
  'sanctions.year': "Probable match: the guest's name and year of birth match {listed} on {source}",
  'sanctions.year.do': "Compare the guest's identity document with the listed entry; decline if they are the same person.",
  'sanctions.name':
    "Possible match: the guest's name is the same as {listed} on {source}, with {missing, select, guest {no date of birth from the guest} other {no date of birth on the list}} to compare",
  'sanctions.name_close':
    "Possible match: the guest's name is close to {listed} on {source}, with {missing, select, guest {no date of birth from the guest} other {no date of birth on the list}} to compare",
  'sanctions.name.do':
    "{missing, select, guest {Ask the guest for their date of birth (the identity step of the guest portal, or a photo of their document): it settles a shared name. Until then, do not accept the stay on the name alone.} other {Compare the guest's identity document with the listed entry before accepting: a shared name is not proof.}}",
  'sanctions.born_otherwise': "Most likely a namesake: the guest's name matches {listed} on {source}, but the list gives another date of birth",
  'sanctions.born_otherwise.do': 'Most likely someone with the same name; keep the document on file.',

  // Adverse media
  'media.none_installed.value': 'Not checked: no news source is installed',
  'media.none_installed.help': 'This check does not count for or against the guest until a news source is installed.',
  'media.clear.value': 'No article names the guest',
  'media.mentions.value': '{count, plural, one {# article names} other {# articles name}} the guest, none about wrongdoing',
  'media.risk.value': '{count, plural, one {# article names} other {# articles name}} the guest near words of {topics}',
  'media.risk.help': 'Read the articles listed and make sure they are about this guest before deciding.',
  'media.risk': 'News names the guest near words of {topics} (“{words}”): “{title}”{date, select, none {} other { ({date})}}',
  'media.mention': 'News names the guest with nothing about wrongdoing: “{title}”',

  // Checks this service has no source for in a screening
  'house_rules.accepted.value': 'House rules accepted',
  'house_rules.open.value': 'House rules not accepted yet',
  'house_rules.open.help': 'The guest accepts the house rules in the guest portal.',
  'unavailable.value':
    'Not checked: {what, select, background_check {no criminal-records source is connected} credit_check {no credit bureau is connected} other {no social-network source is connected}}',
  'unavailable.help': 'This check does not count for or against the guest.{what, select, background_check { You can order a background check for this guest separately.} other {}}',

  // Background-check report
  'report.section.sanctions': 'Sanctions and watchlists',
  'report.section.registry': 'Sex-offender registries',
  'report.section.media': 'Adverse media',
  'report.section.criminal': 'Criminal records',
  'report.not_installed.sanctions': 'No sanctions list is installed',
  'report.not_installed.registry': 'No registry records are installed',
  'report.not_installed.media': 'No news source is installed',
  'report.not_installed.criminal': 'No criminal-records provider is connected',
  'report.not_installed.help': 'This section does not count for or against the person.',
  'report.checkr.no_email': 'Not searched: the check was ordered without the person’s e-mail, which the criminal-records provider needs to ask for their consent',
  'report.checkr.invited': 'The person was e-mailed at {email} to give their consent; this section is filled in once they have and the report is complete',
  'report.checkr.expired': 'Not searched: the person did not give their consent before the invitation expired',
  'report.checkr.canceled': 'Not searched: the criminal-records provider canceled the report',
  'report.checkr.gone': 'The report was ordered from a criminal-records provider this service no longer reaches; read it in the provider’s own dashboard',
  'report.checkr.timed_out': 'Not searched: no report was complete 30 days after the check was ordered',
  'report.checkr.clear': 'No records to consider (report {report})',
  'report.checkr.consider': 'Records to consider (report {report})',
  'report.checkr.consider.detail': 'Read the report in the provider’s dashboard before deciding; a decision based on it must follow the adverse-action steps of the FCRA.',
  'report.sanctions.hit': 'Listed on {source} (list of {date}), entry {entry}',
  'report.sanctions.compared': 'The name searched, {searched}, {how} the listed name {listed}{alias, select, yes {, one of the names the list gives for this person} other {}}.',
  'report.sanctions.how.exact': 'is the same as',
  'report.sanctions.how.close': 'is close to',
  'report.sanctions.born': 'The list gives {count, plural, one {the year of birth} other {the years of birth}} {years}{given, select, none {} other {; the year searched was {given}}}.',
  'report.sanctions.later': 'Named by {source} after this check ran (list of {date}).',
  'report.registry.hit': '{source}: {place}, born {born}',
  'report.registry.compared': 'The name searched, {searched}, is close to the registered name {listed}{year, select, none {} other {; the year of birth {year} is the same}}. Charges: {charges}.',
  'report.title': 'Background check report',
  'report.id': 'Report {id}',
  'report.label.subject': 'Person searched',
  'report.label.born': 'Year of birth',
  'report.label.country': 'Country',
  'report.label.searched': 'Searched',
  'report.label.requested_by': 'Requested by',
  'report.label.ordered': 'Ordered',
  'report.label.completed': 'Completed',
  'report.not_given': 'Not given',
  'report.not_yet': 'Not yet',
  'report.outcome.review': 'Needs a look before you decide',
  'report.outcome.review.detail': "Possible matches in {sections}. A possible match is not proof: compare the details below with the guest's identity document.",
  'report.outcome.cleared': 'Nothing found that needs a look',
  'report.outcome.cleared.detail': 'No record was found in the sources searched.',
  'report.outcome.not_searched': 'Not searched: {sections}.',
  'report.status.CLEAR': 'No record found',
  'report.status.REVIEW': 'Possible match: needs a look',
  'report.status.NOT_RUN': 'Not searched',
  'report.status.PENDING': 'Waiting for the provider',
  'report.nothing_found': 'No record found for this person.',
  'report.searched.sanctions': 'Searched: {lists}.',
  'report.searched.registry': 'Searched: the registry records installed, as of {date}.',
  'report.searched.media': 'Searched: {sources}.',
  'report.searched.watchman': 'the lists of the connected sanctions-screening server',
  'report.searched.corpus': 'the news archive installed, as of {date}',
  'report.caveat': 'A possible match is for a person to review: a shared name is not proof of identity. Each source is named with the date of its data.',
  'report.footer': 'Background check report {id}',
  'report.page': 'Page {page} of {pages}',
  'report.media.about': 'Names the person near words of {topics} (“{words}”).',
  'report.media.mention': 'Names the person, with nothing about wrongdoing.',
} as const;

export type HostMessage = keyof typeof HOST_MESSAGES;

const compiled = new Map<HostMessage, IntlMessageFormat>();

/** A message of the catalogue with its values filled in. */
export function say(key: HostMessage, values: Record<string, string | number> = {}): string {
  let m = compiled.get(key);
  if (!m) compiled.set(key, (m = new IntlMessageFormat(HOST_MESSAGES[key], 'en')));
  return String(m.format(values));
}

// Made once: an Intl formatter is costly to make, and these run for every screening.
const LIST = new Intl.ListFormat('en-GB', { style: 'long', type: 'conjunction' });
const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', year: 'numeric', timeZone: 'UTC' });
const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
const TIME = new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', timeZone: 'UTC' });

/** A list in words: "a", "a and b", "a, b and c". */
export function listInWords(items: readonly string[]): string {
  return LIST.format(items);
}

/** An article's topics of wrongdoing and the words that matched them, as the media messages take them. */
export function topicsInWords(found: readonly { topic: string; words: string }[]): { topics: string; words: string } {
  return { topics: listInWords(found.map((t) => t.topic)), words: found.map((t) => t.words).join('”, “') };
}

const ZONED = new Map<string, Intl.DateTimeFormat>();
/**
 * A moment as a host reads it where it happens: "2 December 2026, 00:00 CET" in the listing's
 * time zone (UTC without one, or with one Intl does not know).
 */
export function momentInWords(at: string, timeZone: string | null | undefined): string {
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return at;
  const zone = timeZone || 'UTC';
  let f = ZONED.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: zone, timeZoneName: 'short' });
    } catch {
      return dateInWords(at, true);
    }
    ZONED.set(zone, f);
  }
  return f.format(d).replace(' at ', ', ');
}

/** A date as a host reads it: 2 January 1968, or December 2025 for a month (a full timestamp also gets its time, UTC). */
export function dateInWords(isoDate: string, withTime = false): string {
  if (/^\d{4}-\d{2}$/.test(isoDate)) {
    return MONTH.format(new Date(`${isoDate}-01T00:00:00Z`));
  }
  const d = new Date(isoDate.length === 10 ? `${isoDate}T00:00:00Z` : isoDate);
  if (Number.isNaN(d.getTime())) return isoDate;
  const day = DAY.format(d);
  if (!withTime || isoDate.length === 10) return day;
  return `${day}, ${TIME.format(d)} UTC`;
}
