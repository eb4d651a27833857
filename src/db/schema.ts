import type { Generated, Selectable } from 'kysely';

// Booleans are stored as boolean on PostgreSQL and 0/1 on SQLite; repositories read them
// through Boolean() and write JS booleans (the SQLite dialect converts them).
type Flag = boolean | number;

export interface AccountsTable {
  id: string;
  parent_id: string | null;
  // '/<root id>/.../<own id>/': a subtree is every path with this prefix.
  path: string;
  name: string;
  email: string;
  phone: string | null;
  company_name: string | null;
  company_email: string | null;
  company_phone: string | null;
  pms: string;
  is_reseller: Flag;
  is_active: Flag;
  is_suspended: Flag;
  /** Every user must sign in with a second factor (an owner's choice). */
  require_two_factor: Generated<Flag>;
  /** Hours before check-in at which an unfinished guest portal is told to the account's people; 0: never. */
  portal_alert_hours: Generated<number>;
  webhook_secret_enc: string;
  webhook_secret_prev_enc: string | null;
  webhook_secret_rotated_at: string | null;
  last_login: string | null;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  key_hash: string;
  key_enc: string;
  created_at: string;
  revoked_at: string | null;
  /** Null for the account's own key (the spec's one key); named keys are made in the console. */
  name: string | null;
  read_only: Generated<Flag>;
  /** A rolled key keeps working until then. */
  expires_at: string | null;
  last_used_at: string | null;
  /** The user who made a named key. */
  created_by: string | null;
}

export interface WebhooksTable {
  account_id: string;
  webhook_key: string;
  url: string;
  created_at: string;
  updated_at: string;
  disabled_at: string | null;
  disabled_reason: string | null;
}

export interface AccountSettingsTable {
  account_id: string;
  config_key: string;
  config_data: string;
  updated_at: string;
}

export interface SignupLinksTable {
  id: string;
  token_hash: string;
  reseller_id: string;
  pms: string;
  redirect: string | null;
  hide_password: Flag;
  expires_at: string;
  used_at: string | null;
  account_id: string | null;
  created_at: string;
}

export interface AuditLogTable {
  id: Generated<number>;
  account_id: string | null;
  actor_id: string | null;
  /** 'user' (the console), 'api_key' (the API) or 'operator' (the command line, the service itself). */
  actor_type: string | null;
  /** The actor's name when it acted: a removed person or a revoked key still reads as who they were. */
  actor_name: string | null;
  action: string;
  subject_id: string | null;
  detail: string | null;
  created_at: string;
}

export interface ReservationsTable {
  /** SQLite only: the stable integer key the full-text index refers to. */
  seq?: Generated<number>;
  id: string;
  account_id: string;
  pms: string;
  pms_reservation_id: string | null;
  confirmation_code: string | null;
  status: string;
  source: string | null;
  listing_id: string | null;
  listing_nickname: string | null;
  listing_timezone_name: string | null;
  number_of_guests: number | null;
  nights: number | null;
  total_price: number | null;
  average_daily_rate: number | null;
  check_in_date: string | null;
  check_out_date: string | null;
  guest_first_name: string | null;
  guest_last_name: string | null;
  guest_full_name: string | null;
  guest_phone: string | null;
  guest_email: string | null;
  guest_location: string | null;
  /** The guest's language (a BCP 47 tag) for the portal and messages; beyond the spec. */
  guest_language: string | null;
  /** Why the host made the manual decision, as they wrote it (null: no reason given). */
  supervised_reason: string | null;
  /** The latest verdict's risk colour (null before the first screening): the review queue's order. */
  risk_color: string | null;
  identification_enc: string | null;
  gp_token: string;
  guestportal_completed: Flag;
  verification_status: string;
  supervised: string | null;
  callback_url: string | null;
  skip_gp: Flag;
  /** The latest verdict (JSON), as the summary and status read it. */
  screening: string | null;
  screened_at: string | null;
  /** Who made the manual decision (JSON {type, id, name}) and when. */
  decided_by: string | null;
  decided_at: string | null;
  /** When a person marked a rule's decline handled (the booking cancelled in its channel, the guest told), and who (JSON, as decided_by). */
  handled_at: string | null;
  handled_by: string | null;
  created_at: string;
  updated_at: string;
  /** PostgreSQL only: the searchable text, generated from the columns it joins (migration 0002); SQLite keeps it in the full-text index. */
  search_text?: Generated<string>;
}

export interface ReservationNotesTable {
  id: string;
  reservation_id: string;
  text: string;
  author_id: string;
  author_name: string;
  author_type: string;
  created_at: string;
}

export interface PaymentEventsTable {
  id: string;
  reservation_id: string;
  event_source: string;
  event_id: string;
  event_type: string;
  event_status: string;
  occurred_at: string;
  data: string;
  created_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: string | null;
  resource_id: string | null;
  locked_until: string;
  expires_at: string;
  /** The request holding the key now (a random token), null once its answer is stored. */
  owner: string | null;
}

export interface JobsTable {
  id: string;
  kind: string;
  payload: string;
  state: string;
  attempt: number;
  max_attempts: number;
  run_at: string;
  locked_by: string | null;
  locked_until: string | null;
  unique_key: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface EventsTable {
  id: string;
  account_id: string;
  type: string;
  subject_id: string | null;
  payload: string;
  created_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  account_id: string;
  /** A webhook key, or 'callback'. */
  target: string;
  url: string;
  state: string;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  created_at: string;
}

export interface ListingsTable {
  account_id: string;
  listing_id: string;
  nickname: string | null;
  /** The listing's own words and brand for the guest (JSON of a HostProfile), over the account's. */
  profile: string | null;
  /** Check-in instructions, sealed: they go to the guest only once the booking is verified. */
  check_in_enc: string | null;
  /** Hours before the check-in day the instructions are sent (default 48). */
  check_in_hours: number | null;
  created_at: string;
  updated_at: string;
}

export interface GuestMessagesTable {
  id: string;
  account_id: string;
  reservation_id: string;
  tag: string;
  method: string;
  via: string | null;
  email: string | null;
  phone: string | null;
  subject: string;
  text: string;
  html: string;
  send_after: string;
  state: string;
  error: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScreeningRunsTable {
  id: string;
  reservation_id: string;
  account_id: string;
  inputs_digest: string;
  engine_version: string;
  checks: string;
  rules_fired: string;
  verdict: string;
  /** The verdict's risk colour (also inside `verdict`), for counting by colour. */
  risk_color: string | null;
  trigger: string;
  created_at: string;
  /** What the run read of the identity document (its reading's id, the fields, the photo's problems), sealed; null when none was read. */
  document_enc: string | null;
}

export interface MatchDismissalsTable {
  id: string;
  account_id: string;
  /** SHA-256 of the guest's normalised name: the guest, without their name. */
  guest_key: string;
  list: string;
  entry_id: string;
  /** The entry's content digest when dismissed: a list that changes the entry makes it alert again. */
  entry_content: string;
  reservation_id: string;
  author_id: string;
  created_at: string;
}

export interface RulesTable {
  id: string;
  account_id: string;
  name: string;
  expression: string;
  action: string;
  enabled: Flag;
  created_at: string;
  updated_at: string;
}

export interface BlocklistEntriesTable {
  id: string;
  account_id: string;
  /** Stored normalised: e-mail lower case, phone E.164, document number upper-case letters and digits. */
  name: string | null;
  email: string | null;
  phone: string | null;
  document_number: string | null;
  /** The identifiers as one value (lib/blocklist-fingerprint.ts), unique per account. */
  fingerprint: string;
  reason: string;
  created_at: string;
}

export interface GuestPortalTable {
  reservation_id: string;
  account_id: string;
  /** Every screen's answers (JSON), sealed with AES-256-GCM bound to the reservation. */
  answers_enc: string;
  /** The screen the guest last saved. */
  last_step: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface GuestPortalFilesTable {
  id: string;
  reservation_id: string;
  account_id: string;
  screen: string;
  field: string;
  filename: string;
  content_type: string;
  size: number;
  /** The file's bytes, sealed with AES-256-GCM bound to the file and its reservation. */
  data_enc: Buffer;
  created_at: string;
}

/** One reading of an identity document's photos (modules/identity). */
export interface IdentityVerificationsTable {
  id: string;
  account_id: string;
  /** Null for a one-off read or comparison (POST /v1/identity/read, /v1/identity/compare). */
  reservation_id: string | null;
  source: 'api' | 'portal' | 'read' | 'compare';
  status: 'pending' | 'finished' | 'failed';
  /** What was read and the photo's problems (JSON), sealed with AES-256-GCM bound to the verification. */
  result_enc: string | null;
  /** Why it failed, in words. */
  error: string | null;
  ms: number | null;
  created_at: string;
  finished_at: string | null;
  images_deleted_at: string | null;
  /** Null without a selfie; else where its comparison with the document's portrait stands. */
  face_status: 'pending' | 'finished' | 'failed' | null;
  /** The comparison and the liveness signals (JSON, lib/faces/selfie.ts), sealed like result_enc; never a face descriptor. */
  face_enc: string | null;
  /** Why the comparison failed, in words. */
  face_error: string | null;
}

export interface IdentityImagesTable {
  id: string;
  verification_id: string;
  account_id: string;
  /**
   * front and back as sent; document: the document cut out of the photo that was read (the
   * reading job adds it); selfie and frame: the guest's face and the camera's frames; a and b: the
   * two photos of a one-off comparison (POST /v1/identity/compare), deleted once answered.
   */
  side: 'front' | 'back' | 'document' | 'selfie' | 'frame' | 'a' | 'b';
  content_type: string;
  size: number;
  /** The photo's bytes, sealed with AES-256-GCM bound to the image and its verification. */
  data_enc: Buffer;
  created_at: string;
}

/** A network provider's answer, kept for the configured time. */
export interface LookupCacheTable {
  kind: string;
  /** Keyed digest of the normalised input (SecretBox.digest), never the input itself. */
  input_digest: string;
  /** The answer as JSON, sealed and bound to kind and digest. */
  result_enc: string;
  expires_at: string;
  created_at: string;
}

/** Calls an account made to paid providers, per UTC day (the per-account quota). */
export interface LookupUsageTable {
  account_id: string;
  day: string;
  calls: number;
}

/** One range of an imported IP threat feed. */
export interface IpThreatEntriesTable {
  id: Generated<number>;
  source: string;
  /** First and last address as 32 hex digits, IPv4 mapped into IPv6 (::ffff:a.b.c.d). */
  range_start: string;
  range_end: string;
  cidr: string;
  title: string;
  link: string | null;
  /** JSON array of strings. */
  tags: string;
  data_date: string;
  imported_at: string;
}

/** One account in an imported breach corpus, found by a keyed digest of the e-mail. */
export interface BreachRecordsTable {
  id: Generated<number>;
  email_digest: string;
  name: string;
  domain: string;
  breach_date: string;
  source: string;
  imported_at: string;
}

/** One imported sex-offender registry record (public-registry data). */
export interface SexOffenderRecordsTable {
  id: string;
  first_name: string;
  last_name: string;
  dob: string;
  city: string | null;
  county: string | null;
  state: string;
  zip: string | null;
  /** JSON arrays of strings. */
  charges: string;
  aliases: string;
  image_url: string | null;
  registered_at: string | null;
  source: string;
  imported_at: string;
}

/** A background check or an adverse-media search: submitted as a job, finished later. */
export interface BackgroundChecksTable {
  id: string;
  account_id: string;
  /** globalcheck (a background check) or adverse_media. */
  type: string;
  /** PENDING, FINISHED or FAILED. */
  status: string;
  /** The person searched for, as JSON, sealed and bound to the check's id. */
  subject_enc: string;
  /** The report once finished, sealed likewise. */
  result_enc: string | null;
  /** CLEARED or REVIEW once finished. */
  risk_status: string | null;
  error: string | null;
  /** The PDF report of a background check, sealed. */
  pdf_enc: Buffer | null;
  start_date: string;
  stop_date: string | null;
  /** The booking it was ordered from in the console, if any (migration 0027). */
  reservation_id: string | null;
}

/** A background check's order at Checkr (migration 0012). */
export interface CheckrOrdersTable {
  check_id: string;
  candidate_id: string;
  invitation_id: string;
  /** Set once the guest completed the invitation and Checkr made the report. */
  report_id: string | null;
  created_at: string;
}

/** One name on an imported sanctions list: an entry's primary name or one of its aliases. */
export interface SanctionsNamesTable {
  id: Generated<number>;
  source: string;
  entry_id: string;
  name: string;
  primary_name: string;
  is_alias: number | boolean;
  /** individual, entity, vessel or aircraft. */
  kind: string;
  /** JSON arrays: sanctions programs, years of birth, countries (nationality, citizenship, addresses). */
  programs: string;
  birth_years: string;
  countries: string;
  remarks: string | null;
  data_date: string;
  imported_at: string;
}

/** One article of an imported news corpus (adverse media). */
export interface NewsArticlesTable {
  id: Generated<number>;
  source: string;
  url: string;
  title: string;
  snippet: string;
  published_at: string | null;
  image: string | null;
  domain: string | null;
  /** Title and snippet folded (nameTokens), what the full-text index holds. */
  search_text: string;
  imported_at: string;
}

/** A host console sign-in; the cookie holds the token, the table only its SHA-256. */
export interface ConsoleSessionsTable {
  token_hash: string;
  /** What a person sees and ends a session by; the token itself is only in the cookie. */
  id: string;
  account_id: string;
  user_id: string;
  /** 'in', 'code' (the second factor awaited) or 'enrol' (a second factor must be set up first). */
  stage: string;
  address: string | null;
  user_agent: string | null;
  last_seen_at: string | null;
  created_at: string;
  expires_at: string;
}

export type Role = 'owner' | 'manager' | 'reviewer' | 'viewer';

export interface UsersTable {
  id: string;
  account_id: string;
  email: string;
  name: string;
  role: Role;
  /** Null until an invited person sets one. */
  password_hash: string | null;
  /** The TOTP secret, sealed; enabled once the first code is entered. */
  totp_secret_enc: string | null;
  totp_enabled_at: string | null;
  /** The last time step whose code was accepted: a code works once. */
  totp_last_step: number | string | null;
  invited_by: string | null;
  joined_at: string | null;
  removed_at: string | null;
  created_at: string;
  updated_at: string;
  /** How this person is told of guests who need a decision: 'each' (at once), 'digest' (daily) or 'off'. */
  alerts: Generated<string>;
  last_digest_at: string | null;
}

/** One person told (or to be told) of one reservation for one reason. */
export interface AlertsTable {
  id: string;
  account_id: string;
  reservation_id: string;
  user_id: string;
  /** 'red', 'orange' or 'portal'. */
  reason: string;
  /** The code of the verdict's top risk when the alert was planned; '' for 'portal'. */
  risk: Generated<string>;
  /** 'each' or 'digest'. */
  mode: string;
  /** 'queued', 'sent' or 'dropped'. */
  state: string;
  created_at: string;
  sent_at: string | null;
}

export interface UserTokensTable {
  token_hash: string;
  user_id: string;
  purpose: 'invite' | 'reset';
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface RecoveryCodesTable {
  user_id: string;
  code_hash: string;
  used_at: string | null;
}

export interface SignInFailuresTable {
  id: string;
  /** Lower-cased, as typed. */
  email: string;
  address: string;
  created_at: string;
}

/** A listing's (or, with listing_id '', the account's) way of reporting its guests to the authorities. */
export interface AuthorityReportsTable {
  id: string;
  account_id: string;
  reservation_id: string;
  guest_index: number;
  guest_name: string;
  system: string;
  mode: string;
  /** missing, ready, sending, sent, accepted, rejected or cancelled. */
  state: string;
  /** JSON: the field names missing or breaking the authority's rules. */
  missing: string;
  sent_digest: string | null;
  lot: string | null;
  receipt: string | null;
  error_code: string | null;
  error_message: string | null;
  due_at: string;
  polls: Generated<number>;
  alerted_at: string | null;
  sent_at: string | null;
  answered_at: string | null;
  created_at: string;
  updated_at: string;
  /** Counts the report's writes: a write made over what was read checks it. */
  version: Generated<number>;
  /** A send in flight holds the report until then (claimed before the authority is called). */
  claimed_until: string | null;
  /** What was sent for the guest, sealed: the host's proof. Erased with the guest. */
  sent_enc: string | null;
  /** What the authority answered for the guest, in its words. */
  answer: string | null;
}

export interface AuthorityReceiptsTable {
  id: string;
  account_id: string;
  establishment_id: string;
  /** YYYY-MM-DD, the day the receipt covers. */
  day: string;
  pdf_enc: string;
  fetched_at: string;
}

/** The last file number sent to an authority's establishment (SIBA's `Numero_Ficheiro`). */
export interface AuthorityFileNumbersTable {
  system: string;
  unit: string;
  establishment: string;
  last_number: number;
}

export interface AuthorityEstablishmentsTable {
  id: string;
  account_id: string;
  listing_id: string;
  /** 'ses' or 'alloggiati'. */
  system: string;
  /** 'test' (the authority's test service or check) or 'production' (reports for real). */
  mode: string;
  /** JSON: the identifiers that are not secret. */
  settings: string;
  credentials_enc: string;
  credentials_set_at: string;
  checked_at: string | null;
  check_problem: string | null;
  /** Alloggiati Web: the day its tables were last fetched with this establishment's credentials, and why they were not. */
  tables_as_of: string | null;
  tables_problem: string | null;
  created_at: string;
  updated_at: string;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  alerts: AlertsTable;
  user_tokens: UserTokensTable;
  recovery_codes: RecoveryCodesTable;
  api_keys: ApiKeysTable;
  webhooks: WebhooksTable;
  account_settings: AccountSettingsTable;
  signup_links: SignupLinksTable;
  audit_log: AuditLogTable;
  reservations: ReservationsTable;
  reservation_notes: ReservationNotesTable;
  payment_events: PaymentEventsTable;
  idempotency_keys: IdempotencyKeysTable;
  jobs: JobsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  listings: ListingsTable;
  guest_messages: GuestMessagesTable;
  screening_runs: ScreeningRunsTable;
  match_dismissals: MatchDismissalsTable;
  rules: RulesTable;
  blocklist_entries: BlocklistEntriesTable;
  guest_portal: GuestPortalTable;
  guest_portal_files: GuestPortalFilesTable;
  identity_verifications: IdentityVerificationsTable;
  identity_images: IdentityImagesTable;
  lookup_cache: LookupCacheTable;
  lookup_usage: LookupUsageTable;
  ip_threat_entries: IpThreatEntriesTable;
  breach_records: BreachRecordsTable;
  sex_offender_records: SexOffenderRecordsTable;
  background_checks: BackgroundChecksTable;
  checkr_orders: CheckrOrdersTable;
  sanctions_names: SanctionsNamesTable;
  news_articles: NewsArticlesTable;
  console_sessions: ConsoleSessionsTable;
  sign_in_failures: SignInFailuresTable;
  authority_establishments: AuthorityEstablishmentsTable;
  authority_reports: AuthorityReportsTable;
  authority_receipts: AuthorityReceiptsTable;
  authority_file_numbers: AuthorityFileNumbersTable;
}

/** A reservation as stored (SQLite's `seq` and PostgreSQL's `search_text` are the storage's own): the reservations module writes it, screening reads it. */
export type ReservationRow = Omit<Selectable<ReservationsTable>, 'seq' | 'search_text'> & { seq?: number };
export type NoteRow = Selectable<ReservationNotesTable>;
export type PaymentEventRow = Selectable<PaymentEventsTable>;
/** An account as stored: the accounts module writes it; every module below it that needs an account's row (people, their sessions) reads this type. */
export type AccountRow = Selectable<AccountsTable>;
