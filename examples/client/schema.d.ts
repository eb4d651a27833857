// Generated from openapi.json by openapi-typescript (npm run api:client). Do not edit.
export interface paths {
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process answers */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness: the database answers; with the data sources installed */
        get: operations["getReadiness"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/me": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The calling account; validates the key */
        get: operations["getCurrentAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/children": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Direct child accounts of the caller, paged */
        get: operations["listChildAccounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** API keys of every account in the caller's subtree, the caller included */
        get: operations["listApiKeys"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/register": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Create a child account of the caller */
        post: operations["createChildAccount"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Update an account the caller manages; status and suspended change its state */
        put: operations["updateAccount"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/signup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A single-use self-signup link that creates a child account of the caller */
        post: operations["createSignupLink"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Registered webhooks and the signing secret (beyond the spec) */
        get: operations["listWebhooks"];
        put?: never;
        /** Register (or replace) the URL of one webhook kind */
        post: operations["registerWebhook"];
        /** Unregister the URL of one webhook kind */
        delete: operations["unregisterWebhook"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/webhooks/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Webhook and callback deliveries with every attempt, newest first (beyond the spec) */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/webhooks/deliveries/{id}/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a delivery's event again, to the target's current URL (beyond the spec) */
        post: operations["replayWebhookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/webhooks/secret/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Replace the signing secret; deliveries carry both signatures for 24 hours (beyond the spec) */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/settings/guest-portal-screens/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Read the guest-portal screen settings; with a JSON body (as the spec has it), update them */
        get: operations["getGuestPortalScreens"];
        /** Update the guest-portal screen settings (beyond the spec: the same update as a PUT) */
        put: operations["updateGuestPortalScreens"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Search reservations */
        get: operations["searchReservations"];
        put?: never;
        /** Create a reservation */
        post: operations["createReservation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A reservation by id, confirmation code (pms) or PMS id (pms + usepmsid) */
        get: operations["getReservation"];
        /** Update a reservation: given fields replace, guest and identification merge key by key */
        put: operations["updateReservation"];
        post?: never;
        /** Erase a reservation and its guest's personal data (beyond the spec) */
        delete: operations["eraseReservation"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/summary": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verification summary */
        get: operations["getReservationSummary"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/status": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Verification status */
        get: operations["getReservationStatus"];
        put?: never;
        /** Approve or decline manually; can be changed later */
        post: operations["setManualDecision"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/screens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Guest-portal screens resolved from the account's settings */
        get: operations["getReservationScreens"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/notes": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Notes: system, manual decisions, hosts */
        get: operations["listReservationNotes"];
        put?: never;
        /** Add a host note (beyond the spec) */
        post: operations["addReservationNote"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/payments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payments derived from payment events */
        get: operations["listReservationPayments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/payment-event": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Record a payment event; idempotent on (event_source, event_id) */
        post: operations["recordPaymentEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/stargate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Queued and sent guest messages */
        get: operations["listGuestMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/sanctions-dismissals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Dismiss a possible sanctions match as a different person: remembered for the guest and the entry until a list changes the entry, noted, and the reservation screened again (beyond the spec) */
        post: operations["dismissSanctionsMatch"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/screen": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run screening again now (beyond the spec); with sync=1, answer with the new status */
        post: operations["screenReservation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/decisions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every screening run: inputs digest, each check, rules fired, verdict (beyond the spec) */
        get: operations["listScreeningRuns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/guestportal": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Guest-portal details */
        get: operations["getGuestPortal"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/guestportal/files/{file_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A file the guest uploaded in the guest portal, decrypted (beyond the spec) */
        get: operations["getGuestPortalFile"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/screening-settings": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Screening settings: risk tolerance, minimum age, disabled checks, name match threshold (beyond the spec) */
        get: operations["getScreeningSettings"];
        /** Change screening settings; given fields replace, others stay (beyond the spec) */
        put: operations["updateScreeningSettings"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/host-profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** What guests see of the host: name, logo, accent colour, house rules, rental agreement (beyond the spec) */
        get: operations["getHostProfile"];
        /** Change what guests see of the host; given fields replace, null clears, others stay (beyond the spec) */
        put: operations["updateHostProfile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/host-profile": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A listing’s own words and brand; a field left null falls back to the account’s (beyond the spec) */
        get: operations["getListingHostProfile"];
        /** Change a listing’s own words and brand; null clears a field back to the account’s (beyond the spec) */
        put: operations["updateListingHostProfile"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/check-in": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A listing’s check-in instructions, sent to each guest only once the booking is verified (beyond the spec) */
        get: operations["getCheckInInstructions"];
        /** Set a listing’s check-in instructions (stored encrypted); given fields replace, null clears; verified upcoming bookings get them in time (beyond the spec) */
        put: operations["updateCheckInInstructions"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/accounts/authority-establishment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account’s default police system and identifiers, never its credentials (beyond the spec) */
        get: operations["getAccountAuthorityEstablishment"];
        /** Set the account’s default police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec) */
        put: operations["setAccountAuthorityEstablishment"];
        post?: never;
        /** Stop reporting by the account’s default (beyond the spec) */
        delete: operations["removeAccountAuthorityEstablishment"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/listings/{listing_id}/authority-establishment": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A listing’s own police system and identifiers, never its credentials (beyond the spec) */
        get: operations["getListingAuthorityEstablishment"];
        /** Set a listing’s police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec) */
        put: operations["setListingAuthorityEstablishment"];
        post?: never;
        /** Stop a listing’s own reporting: it falls back to the account’s default (beyond the spec) */
        delete: operations["removeListingAuthorityEstablishment"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/authority-reports": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Each guest’s police report: missing, ready, sent, accepted (with the receipt) or rejected, and late (beyond the spec) */
        get: operations["getAuthorityReports"];
        put?: never;
        /** Send now: each guest’s report planned from the portal’s answers and sent at once, whatever the day; one filed is not sent again unless its guest changed (beyond the spec) */
        post: operations["sendAuthorityReports"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/authority-receipts/{day}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Alloggiati Web’s receipt (Ricevuta) of a day for the booking’s establishment, as the PDF the service gave: the host’s proof of filing (beyond the spec)
         * @description The day is a report’s receipt (YYYY-MM-DD). Kept 5 years; the service itself gives it for 30 days only.
         */
        get: operations["getAuthorityReceipt"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/screening/match": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Match a person's name against the account's blocklist and the imported sanctions lists, with why each candidate matched (beyond the spec) */
        post: operations["matchName"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/reservations/{id}/identity-documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send photos of the guest's passport or ID card to be read (multipart/form-data: front, and back for an ID card), with a selfie to compare with its portrait
         * @description Answers 202 at once; the reading runs as a job (a second or two) and the reservation is screened again when it ends. JPEG, PNG, WebP or BMP, known by their bytes whatever their names (a JPEG cut short is read as far as it goes), 15 MB at most each; HEIC is refused with how to send a JPEG. With a selfie part, the guest's face is compared with the document's portrait, and with selfie_frames (up to 8 parts of that name, a camera's frames in the order taken) the liveness signals look for a head turn and a blink across them: the verification's face and liveness sections.
         */
        post: operations["submitIdentityDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identity-verifications/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A reading of identity document photos: status, the fields read with their check digits, the photo problems in words */
        get: operations["getIdentityVerification"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identity/read": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Read one photo of a passport or ID card and answer what it says, with no reservation (multipart/form-data: image)
         * @description For a check-in kiosk or a PMS app: answers when the reading is done, waiting up to 30 s (GUESTSCREEN_IDENTITY_READ_WAIT_SECONDS). A photo still being read when the wait ends is answered 202 with its id and a Location to ask (GET /v1/identity-verifications/{id}, which answers it once done and forgets it then; kept 15 minutes at most); 503 with Retry-After when no worker got to it (none running, or all busy). Nothing is kept once answered: neither the photo nor what was read.
         */
        post: operations["readIdentityDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/identity/compare": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Compare the faces of two photos (multipart/form-data: image_a, image_b): the same person, not the same person, or cannot tell
         * @description Answers when the comparison is done (up to 30 s; 503 when no worker runs), with the similarity, the calibrated threshold and the verdict. Nothing is kept: neither the photos nor the faces’ descriptors.
         */
        post: operations["compareFaces"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's business rules */
        get: operations["listRules"];
        put?: never;
        /** Create a rule; the expression must compile */
        post: operations["createRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One rule */
        get: operations["getRule"];
        /** Change a rule: name, expression, action or enabled */
        put: operations["updateRule"];
        post?: never;
        /** Delete a rule */
        delete: operations["deleteRule"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/rules/dry-run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Evaluate a candidate rule over the account's screened reservations without changing anything */
        post: operations["dryRunRule"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blocklist": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's blocklist, newest first */
        get: operations["listBlocklist"];
        put?: never;
        /** Block a guest by name, e-mail, phone and/or document number */
        post: operations["createBlocklistEntry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/blocklist/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One entry */
        get: operations["getBlocklistEntry"];
        /** Change an entry: given fields replace */
        put: operations["updateBlocklistEntry"];
        post?: never;
        /** Remove an entry */
        delete: operations["deleteBlocklistEntry"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/phone/{number}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Phone number: validity, line type, carrier */
        get: operations["lookupPhone"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/social": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Which platforms an e-mail or a phone number is registered on */
        post: operations["lookupSocial"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/breaches/{email}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Data breaches an e-mail address appeared in */
        get: operations["lookupBreaches"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/whois/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A domain's registration (RDAP) */
        get: operations["lookupWhois"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/domain/{domain}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The company behind a domain */
        get: operations["lookupDomain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/geoip/{ip}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where an IP address is */
        get: operations["lookupGeoip"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/sexoffender": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Possible matches in sex-offender registries, for a person to review */
        get: operations["lookupSexOffender"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/geocode/{address}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Where a street or mailing address is */
        get: operations["lookupGeocode"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/ip-threats/{ip}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Threat feeds and reports that list an IP address */
        get: operations["lookupIpThreats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/background-check/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start a background check (answers PENDING; results and a PDF follow) */
        post: operations["submitBackgroundCheck"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/background-check/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's background checks, newest first, without their findings (beyond the spec) */
        get: operations["listBackgroundChecks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/background-check/results/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A background check: status, risk status, findings by source, PDF link */
        get: operations["getBackgroundCheck"];
        put?: never;
        post?: never;
        /** Delete a background check, its report and PDF (beyond the spec) */
        delete: operations["deleteBackgroundCheck"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/background-check/results/{id}/pdf": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The PDF report of a finished background check */
        get: operations["getBackgroundCheckPdf"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/adverse-media/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Start an adverse-media search for a person (answers PENDING; the report follows) */
        get: operations["startAdverseMediaSearch"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/adverse-media/results": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The account's adverse-media reports, newest first, without their findings (beyond the spec) */
        get: operations["listAdverseMediaReports"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/lookup/adverse-media/results/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An adverse-media report */
        get: operations["getAdverseMediaReport"];
        put?: never;
        post?: never;
        /** Delete an adverse-media report and the person it names (beyond the spec) */
        delete: operations["deleteAdverseMediaReport"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Who did what in this account, latest first (beyond the spec)
         * @description Every change made in the console names its person; every change made through the API names its key. Decisions, notes, people, keys, rules, blocklist, settings and webhooks.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    reservation_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * reservation.created, reservation.updated
         * @description Sent to the account's `reservation_webhook_url` when a reservation is created or changed (by the API, the console or the guest portal). Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onReservationWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    authority_report: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * authority_report.updated
         * @description Sent to the account's `reservation_webhook_url` when a guest's police report changes state (missing, ready, sent, accepted, rejected) or gets the authority's answer. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onAuthorityReport"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    screening_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * screening.changed
         * @description Sent to the account's `screening_webhook_url` when a reservation's verification status or manual decision changes. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onScreeningWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    callback: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * screening.finished
         * @description Sent when the screening run a request asked for with `callback=` has finished; sent to that URL. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onCallback"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    guest_portal_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * guest_portal.completed
         * @description Sent to the account's `guest_portal_webhook_url` when a guest completes the guest portal. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onGuestPortalWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    stargate_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * guest_message.sent, guest_message.canceled
         * @description Sent to the account's `stargate_webhook_url` when a guest message (invitation, reminder, check-in details) has been sent; or check-in details were withheld because the booking was declined, cancelled or is no longer verified. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onStargateWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    account_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * account.created, account.updated
         * @description Sent to the account's `account_webhook_url` when a child account is created or changed; sent to its parent's URL. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onAccountWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    background_check_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * background_check.finished, background_check.failed, adverse_media.finished, adverse_media.failed, background_check.updated
         * @description Sent to the account's `background_check_webhook_url` when a background check or adverse-media report finishes or fails, or a finished check changes because a list did. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onBackgroundCheckWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    listing_webhook_url: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * listing.created, listing.renamed
         * @description Sent to the account's `listing_webhook_url` when a reservation names a listing the account has not seen, or a new name for one it has. Signed per Standard Webhooks; any answer but 2xx is retried on the delivery schedule, and 410 Gone turns the URL off.
         */
        post: operations["onListingWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        ErrorResponse: {
            /** @description what went wrong, naming the field for validation failures */
            error: string;
            /** @description stable machine-readable code */
            code?: string;
            /** @description quote it when reporting a problem */
            request_id?: string;
        };
        Account: {
            id: string;
            name: string;
            email: string;
            phone: string;
            is_active: boolean;
            is_suspended: boolean;
            /** @description beyond the spec: may manage child accounts */
            is_reseller: boolean;
            /** Format: date-time */
            last_login: string | null;
            /** Format: date-time */
            created_at: string;
            company: {
                name: string;
                email: string;
                phone: string;
            };
            billing: {
                parent_account: string | null;
            };
        };
        Reservation: {
            id: string;
            user_id: string;
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
            guest_portal_url: string;
            guest: {
                first_name: string | null;
                last_name: string | null;
                full_name: string | null;
                phone: string | null;
                email: string | null;
                location: string | null;
                language: string | null;
            };
            identification: {
                first_name: string | null;
                last_name: string | null;
                middle_name: string | null;
                document_number: string | null;
                document_type: string | null;
                nationality: string | null;
                sex: string | null;
                address: string | null;
                birth_date: string | null;
                expiry_date: string | null;
                issue_date: string | null;
                mrz: string | null;
            };
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        ScreeningEvent: {
            /** @description the reservation */
            id: string;
            /**
             * @description the composite status: the manual decision when there is one, else the verdict
             * @enum {string}
             */
            status: "pending" | "verified" | "review" | "declined";
            guestportal_completed: boolean;
            /** @description the verdict in a sentence */
            reason: string;
            /** @description the business rules that fired */
            business_rules: string[];
            notes: {
                text: string;
                author_id: string;
                author_name: string;
                author_type: string;
                timestamp: string;
            }[];
            /** @enum {string|null} */
            supervised: "approve" | "decline" | null;
            /** @description beyond the hosted original: the host's reason for the manual decision, if they gave one */
            supervised_reason: string | null;
            decided_by: components["schemas"]["DecidedBy"] | null;
            /** @description beyond the hosted original: when the manual decision was made */
            decided_at: string | null;
            /**
             * @description beyond the hosted original
             * @enum {string}
             */
            risk_color: "green" | "yellow" | "orange" | "red";
            /** @description beyond the hosted original: what was found, strongest first */
            top_risks: string[];
            /** @description beyond the hosted original: what to do */
            top_recommendations: string[];
            /** @description beyond the hosted original: the reservation in this API */
            url: string;
            /** @description beyond the hosted original: present when the guest's identity document was read from its photo (never the photo or the fields themselves) */
            identity_document?: {
                /** @description GET /v1/identity-verifications/{id} for the fields read */
                verification_id: string;
                /** @description every check digit read holds */
                valid: boolean;
            };
        };
        AuthorityReportEvent: {
            reservation_id: string;
            report: {
                id: string;
                /** @description 1 for the guest who booked, 2… for the others, in the order the portal asked them */
                guest: number;
                /** @description null once the guest was erased: the proof of filing is kept */
                guest_name: string | null;
                system: "ses" | "alloggiati" | "siba";
                system_name: string;
                /** @description the mode it went in (or, not sent yet, will go in): test, the authority’s test service, which files nothing; production, for real */
                mode: "test" | "production";
                /** @description the authority’s test service answered it: nothing was filed, and it goes again for real once the establishment is in production */
                tested: boolean;
                /** @description missing: the guest has not given all the authority needs (see missing); ready: goes on the arrival day; sent: waiting for the authority; accepted: filed (receipt); rejected: see error; not_required: the authority does not take this guest (SIBA: a Portuguese citizen), nothing is sent */
                state: "missing" | "ready" | "sent" | "accepted" | "rejected" | "not_required";
                /** @description not accepted, and past its deadline (24 hours from arrival; SIBA: 3 working days) */
                late: boolean;
                /** @description the portal’s field names the guest still has to give, or check_in_date/check_out_date the booking lacks */
                missing: string[];
                due_at: string;
                sent_at: string | null;
                answered_at: string | null;
                /** @description the proof of filing: SES, its codigoComunicacion; Alloggiati Web, the day (YYYY-MM-DD) of the receipt (Ricevuta) that lists the guest; SIBA gives none (proof.sent and proof.answer are the proof) */
                receipt: string | null;
                error: {
                    /** @description the authority’s code (SES: codigo or tipoError), or unconfirmed: sent, its answer lost */
                    code: string | null;
                    /** @description the authority’s own words */
                    message: string | null;
                    /** @description what to do about it, in words */
                    fix: string;
                } | null;
                /** @description the host’s proof of each send: on a booking’s reports, not in webhooks */
                proof?: {
                    /** @description what was sent for the guest: SES, the part (XML) of the stay; Alloggiati Web, the guest’s row; SIBA, the file (MovimentoBAL); null before any send, or once the guest was erased */
                    sent: string | null;
                    /** @description what the authority answered for the guest (JSON, in its own field names) */
                    answer: string | null;
                };
            };
        };
        Health: {
            status: string;
            /** @description the running version of guestscreen */
            version: string;
        };
        Readiness: {
            status: string;
            /** @description the data sources the checks read; a missing one makes its check INCOMPLETE, never wrong */
            sources: {
                name: string;
                installed: boolean;
                /** @description what is installed, or what the operator can do to install it */
                detail: string;
            }[];
        };
        AccountPage: {
            from: number;
            size: number;
            total: number;
            items: {
                id: string;
                name: string;
                email: string;
                phone: string;
            }[];
        };
        ApiKeys: {
            user_id: string;
            user_name: string;
            value: string;
        }[];
        AccountRegistrationRequest: {
            name: string;
            /** Format: email */
            email: string;
            phone?: string;
            password?: string;
            company?: {
                name?: string;
                email?: string | "";
                phone?: string;
            };
        };
        RegisteredAccount: {
            id: string;
            name: string;
            email: string;
            phone: string;
            is_active: boolean;
            is_suspended: boolean;
            /** @description beyond the spec: may manage child accounts */
            is_reseller: boolean;
            /** Format: date-time */
            last_login: string | null;
            /** Format: date-time */
            created_at: string;
            company: {
                name: string;
                email: string;
                phone: string;
            };
            billing: {
                parent_account: string | null;
            };
            /** @description beyond the spec: the new account's API key, also listed by GET /accounts/keys */
            api_key: string;
        };
        AccountUpdateRequest: {
            name?: string;
            /** Format: email */
            email?: string;
            phone?: string;
            password?: string;
            company?: {
                name?: string;
                email?: string | "";
                phone?: string;
            };
        };
        SignupLink: {
            /** Format: uri */
            url: string;
            /** Format: date-time */
            expiry: string;
        };
        AccountWebhooksRequest: {
            /** @description http(s) URL */
            webhook_url: string;
            /**
             * @description which event kind the URL receives
             * @enum {string}
             */
            webhook_key: "screening_webhook_url" | "guest_portal_webhook_url" | "reservation_webhook_url" | "stargate_webhook_url" | "listing_webhook_url" | "account_webhook_url" | "background_check_webhook_url";
        };
        AccountWebhookRemovalRequest: {
            /**
             * @description which event kind the URL receives
             * @enum {string}
             */
            webhook_key: "screening_webhook_url" | "guest_portal_webhook_url" | "reservation_webhook_url" | "stargate_webhook_url" | "listing_webhook_url" | "account_webhook_url" | "background_check_webhook_url";
            /** @description when given, must match the registered URL */
            webhook_url?: string;
        };
        Webhooks: {
            /** @description whsec_… secret that signs every delivery (Standard Webhooks) */
            signing_secret: string;
            webhooks: {
                webhook_key: string;
                webhook_url: string;
                /** @description false after the receiver answered 410 Gone; registering again enables it */
                enabled: boolean;
                disabled_reason: string | null;
                /** Format: date-time */
                created_at: string;
                /** Format: date-time */
                updated_at: string;
            }[];
        };
        WebhookDeliveryPage: {
            from: number;
            size: number;
            total: number;
            items: {
                id: string;
                event_id: string;
                event_type: string;
                subject_id: string | null;
                /** @description the webhook key, or callback */
                target: string;
                url: string;
                /** @description pending, succeeded or failed */
                state: string;
                attempts: {
                    attempt: number;
                    status_code: number | null;
                    latency_ms: number;
                    error: string | null;
                    at: string;
                }[];
                created_at: string;
                updated_at: string;
            }[];
        };
        AccountSettingsResponse: {
            config_key: string;
            config_data: {
                source?: string;
                guest_portal_screens: {
                    /** @enum {string} */
                    AboutYou?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    AuthorityReporting?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    BuildingScreen?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    BackgroundCheck?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    CreditCheck?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    IDVerification?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    IDCollection?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    Selfie?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SecurityDeposit?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    UsageAgreement?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    Coronavirus?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    CustomScreen?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    FileUpload?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    GuestList?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    HouseRules?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    LongTerm?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    PurposeOfStay?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    TimeInfoEdit?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SexOffendersAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SocialVerificationAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SanctionsSearchAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    FraudDetectionAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    AdverseMediaSearchAddon?: "required" | "optional" | "disabled";
                };
            }[];
        };
        AccountSettingsRequest: {
            config_key?: string;
            config_data: {
                source?: string;
                guest_portal_screens: {
                    /** @enum {string} */
                    AboutYou?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    AuthorityReporting?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    BuildingScreen?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    BackgroundCheck?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    CreditCheck?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    IDVerification?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    IDCollection?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    Selfie?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SecurityDeposit?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    UsageAgreement?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    Coronavirus?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    CustomScreen?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    FileUpload?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    GuestList?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    HouseRules?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    LongTerm?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    PurposeOfStay?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    TimeInfoEdit?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SexOffendersAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SocialVerificationAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    SanctionsSearchAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    FraudDetectionAddon?: "required" | "optional" | "disabled";
                    /** @enum {string} */
                    AdverseMediaSearchAddon?: "required" | "optional" | "disabled";
                };
            }[];
        };
        ReservationCreateRequest: {
            confirmation_code?: string;
            /** @enum {string} */
            status?: "CONFIRMED" | "CANCELED" | "INQUIRY";
            source?: string;
            listing_id?: string;
            listing_nickname?: string;
            listing_timezone_name?: string;
            number_of_guests?: number;
            nights?: number;
            total_price?: number;
            average_daily_rate?: number;
            /**
             * Format: date
             * @description YYYY-MM-DD
             */
            check_in_date?: string;
            /**
             * Format: date
             * @description YYYY-MM-DD
             */
            check_out_date?: string;
            identification?: {
                first_name?: string;
                last_name?: string;
                middle_name?: string;
                document_number?: string;
                document_type?: string;
                nationality?: string;
                sex?: string;
                address?: string;
                birth_date?: string | "";
                expiry_date?: string | "";
                issue_date?: string | "";
                /** @description beyond the spec: the document's machine-readable zone, lines separated by newlines */
                mrz?: string;
            };
            /** @description `api` (default) or a configured PMS name */
            pms?: string;
            pms_reservation_id?: string;
            guest: {
                first_name: string;
                last_name: string;
                full_name?: string;
                phone?: string;
                email?: string | "";
                location?: string;
                /** @description beyond the spec: the guest's language (BCP 47, such as es or pt-BR) for the guest portal and messages; else the browser's */
                language?: string | "";
            };
        };
        ReservationPage: {
            from: number;
            size: number;
            total: number;
            items: components["schemas"]["Reservation"][];
        };
        ReservationUpdateRequest: {
            confirmation_code?: string;
            /** @enum {string} */
            status?: "CONFIRMED" | "CANCELED" | "INQUIRY";
            source?: string;
            listing_id?: string;
            listing_nickname?: string;
            listing_timezone_name?: string;
            number_of_guests?: number;
            nights?: number;
            total_price?: number;
            average_daily_rate?: number;
            /**
             * Format: date
             * @description YYYY-MM-DD
             */
            check_in_date?: string;
            /**
             * Format: date
             * @description YYYY-MM-DD
             */
            check_out_date?: string;
            identification?: {
                first_name?: string;
                last_name?: string;
                middle_name?: string;
                document_number?: string;
                document_type?: string;
                nationality?: string;
                sex?: string;
                address?: string;
                birth_date?: string | "";
                expiry_date?: string | "";
                issue_date?: string | "";
                /** @description beyond the spec: the document's machine-readable zone, lines separated by newlines */
                mrz?: string;
            };
            /** @description `api` (default) or a configured PMS name */
            pms?: string;
            pms_reservation_id?: string;
            guest?: {
                first_name?: string;
                last_name?: string;
                full_name?: string;
                phone?: string;
                email?: string | "";
                location?: string;
                /** @description beyond the spec: the guest's language (BCP 47, such as es or pt-BR) for the guest portal and messages; else the browser's */
                language?: string | "";
            };
        };
        Check: {
            status: string;
            value?: string;
            help?: string;
            /**
             * @description Beyond the spec: the strength of the evidence the check found (docs/verdicts.md); absent when it found nothing
             * @enum {string}
             */
            strength?: "context" | "weak" | "moderate" | "strong" | "decisive";
            findings?: string[];
        };
        ReservationSummaryResponse: {
            guest_portal_status: string;
            guest_portal_last_screen: string;
            verification_composite_status: string;
            verification_status: string;
            verification_status_reason: string;
            risk_color: string;
            top_risks: string[];
            top_recommendations: string[];
            details: {
                [key: string]: components["schemas"]["Check"];
            };
            supervised_status: string | null;
        };
        /** @description beyond the spec: who made the manual decision (null: no decision yet) */
        DecidedBy: {
            /**
             * @description a person in the console, an API key, or the operator
             * @enum {string}
             */
            type: "user" | "api_key" | "operator";
            /** @description the person's or key's id */
            id: string;
            /** @description the person's name, or the key's name ('API key' for the account's own key), as it was when they decided */
            name: string;
        };
        ReservationStatusResponse: {
            status: string;
            pms_status: string;
            supervised: string | null;
            /** @description beyond the spec: the host's reason for the manual decision, if they gave one */
            supervised_reason: string | null;
            decided_by: components["schemas"]["DecidedBy"] | null;
            /** @description beyond the spec: when the manual decision was made */
            decided_at: string | null;
            reason: string;
            guestportal_completed: boolean;
            business_rules: string[];
        };
        ReservationsVerificationChangeRequest: {
            /** @enum {string} */
            supervised: "approve" | "decline";
            /** @description beyond the spec: why, in the host’s words; kept with the decision and sent in the screening webhook */
            reason?: string;
        };
        ReservationScreensResponse: {
            AboutYou: string;
            AuthorityReporting: string;
            BuildingScreen: string;
            BackgroundCheck: string;
            CreditCheck: string;
            IDVerification: string;
            IDCollection: string;
            Selfie: string;
            SecurityDeposit: string;
            UsageAgreement: string;
            Coronavirus: string;
            CustomScreen: string;
            FileUpload: string;
            GuestList: string;
            HouseRules: string;
            LongTerm: string;
            PurposeOfStay: string;
            TimeInfoEdit: string;
            SexOffendersAddon: string;
            SocialVerificationAddon: string;
            SanctionsSearchAddon: string;
            FraudDetectionAddon: string;
            AdverseMediaSearchAddon: string;
        };
        Notes: {
            text: string;
            author_id: string;
            author_name: string;
            author_type: string;
            timestamp: string;
        }[];
        Payments: {
            security_deposit: {
                successful_authorizations: {
                    currency: string;
                    amount: number;
                    receipt_url: string;
                    timestamp: string;
                    card_brand: string;
                }[];
                charge_failures: {
                    message: string;
                    timestamp: string;
                }[];
                refunds: {
                    currency: string;
                    amount: number;
                    receipt_url: string;
                    timestamp: string;
                }[];
                deposit_captures: {
                    currency: string;
                    amount: number;
                    receipt_url: string;
                    timestamp: string;
                    card_brand: string;
                }[];
            };
            payment_validation: {
                receipt_url: string;
                name_on_card: string;
                funding_type: string;
                card_brand: string;
                card_country: string;
                status: string;
                errors: {
                    title: string;
                    description: string;
                }[];
            };
            damage_waiver: {
                currency: string;
                amount: number;
                receipt_url: string;
                timestamp: string;
            };
            extra_services: {
                amount: number;
                receipt_url: string;
                products: {
                    name: string;
                    price: number;
                }[];
            };
        };
        PaymentEventRequest: {
            /** @description the payment system, e.g. stripe */
            event_source: string;
            /** @description the event's id in that system; repeats are ignored */
            event_id: string;
            /** @enum {string} */
            event_type: "authorization" | "capture" | "refund" | "charge" | "validation" | "void";
            /** @enum {string} */
            event_status: "succeeded" | "failed" | "pending";
            customer_id?: string;
            processor_status_code?: string;
            processor_message?: string;
            network_status_code?: string;
            /** @enum {string} */
            three_d_secure?: "authenticated" | "attempted" | "failed" | "not_supported" | "not_attempted";
            amount?: number;
            currency?: string;
            charge_descriptor?: string;
            name_on_card?: string;
            payment_method?: string;
            card_type?: string;
            card_provider?: string;
            card_iin?: string;
            card_last4?: string;
            card_country?: string;
            card_expiry_month?: string;
            card_expiry_year?: string;
            billing_country_code?: string;
            billing_address?: string;
            billing_city?: string;
            billing_state_code?: string;
            billing_postal_code?: string;
            billing_phone?: string;
            /** Format: email */
            billing_email?: string;
            billing_name?: string;
            ip_address?: string;
            user_agent?: string;
            /**
             * Format: uri
             * @description beyond the spec: shown in /payments
             */
            receipt_url?: string;
            /** Format: date-time */
            timestamp?: string;
        };
        GuestMessages: {
            id: string;
            /** @description beyond the spec: queued, sent, canceled */
            status: string;
            email: string;
            phone: string;
            tag: string;
            method: string;
            via: string;
            sendAfter: string;
            created: string;
            updated: string;
            reservation_id: string;
            listing_id: string;
            confirmation_code: string;
            message: {
                subject: string;
                text: string;
                html: string;
            };
        }[];
        SanctionsDismissalRequest: {
            /** @description the candidate's list, e.g. 'OFAC SDN' */
            list: string;
            entry_id: string;
            /** @description why: a different date of birth on the document, another nationality, … */
            reason?: string;
        };
        ReadDocument: {
            /**
             * @description TD3: passport data page (2 × 44); TD2: 2 × 36; TD1: ID card (3 × 30); MRV-A and MRV-B: visas (2 × 44, 2 × 36); FR-ID: France's identity card of 1988 to 2021 (2 × 36, its own layout: no nationality, and an expiry worked out from the issue month its number begins with)
             * @enum {string}
             */
            format: "TD1" | "TD2" | "TD3" | "MRV-A" | "MRV-B" | "FR-ID";
            document_type: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            issuing_state: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            document_number: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            surname: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            given_names: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            nationality: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            birth_date: {
                /** @description YYYY-MM-DD */
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            sex: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            expiry_date: {
                /** @description YYYY-MM-DD */
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            optional_data: {
                value: string | null;
                /**
                 * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
                 * @enum {string}
                 */
                check: "valid" | "invalid" | "none";
                /** @description a look-alike character (O/0, I/1, B/8, S/5, Z/2, G/6) was swapped because only then did the check digit hold */
                corrected?: boolean;
            };
            /**
             * @description valid or invalid by the field's check digit; none where the zone gives it none (names, codes). A name is invalid where the reader lost a letter of it (a gap in its line that its characters do not fill), which no check digit would see
             * @enum {string}
             */
            composite: "valid" | "invalid" | "none";
            /** @description every check digit the document has holds; a name has none (see name_confirmed) */
            valid: boolean;
            /** @description true: the name printed on the document (a passport's page, an ID card's front) was read and is the zone's, surname and given names; false: the name was read from the machine-readable zone only, which has no check digit for it (no printed page read, or an ID card's back sent alone), so a letter misread in it passes every check. Absent from readings made before it was kept */
            name_confirmed?: boolean;
            /** @description the machine-readable zone's lines as read */
            zone: string[];
            printed?: {
                surname: {
                    /** @description the name as printed on the page, where found */
                    printed: string | null;
                    /**
                     * @description same: printed as the zone says; differs: printed a letter or two apart (a misread or an altered document); unread: not found on the page
                     * @enum {string}
                     */
                    agrees: "same" | "differs" | "unread";
                };
                given_names: {
                    /** @description the name as printed on the page, where found */
                    printed: string | null;
                    /**
                     * @description same: printed as the zone says; differs: printed a letter or two apart (a misread or an altered document); unread: not found on the page
                     * @enum {string}
                     */
                    agrees: "same" | "differs" | "unread";
                };
                /**
                 * @description same: the zone's birth date is among the dates printed on the page
                 * @enum {string}
                 */
                birth_date: "same" | "unread";
                /**
                 * @description same: the zone's expiry date is among the dates printed on the page
                 * @enum {string}
                 */
                expiry_date: "same" | "unread";
            } | null;
        };
        ReservationGuestPortalResponse: {
            full_name: string;
            phone: string;
            email: string;
            name_on_card: string;
            security_deposit: boolean;
            last_step: string;
            completed: boolean;
            completed_at: string;
            updated_at: string;
            guests: {
                name: string;
                email: string;
            }[];
            /** @description Beyond the spec: what the guest gave on each screen (`answers`, files as {id, filename, content_type, size}), or `skipped`, with when (`at`) */
            screens: {
                [key: string]: unknown;
            };
        };
        ScreeningSettings: {
            /**
             * @description low: stricter thresholds; high: more lenient
             * @enum {string}
             */
            risk_tolerance: "low" | "balanced" | "high";
            minimum_age: number;
            disabled_checks: ("background_check" | "credit_check" | "blacklist" | "payment_verification" | "identification_document" | "fraud_detection" | "adverse_media" | "social_verification" | "sanctions" | "house_rules")[];
            /** @description the name matcher score from which a listed name (blocklist, sanctions) is a possible match; default 0.9 (see POST /v1/screening/match) */
            name_match_threshold: number;
            /** @description the identity documents accepted, as read from their photos: another kind is a finding; default passport and id_card */
            accepted_documents: ("passport" | "id_card" | "visa")[];
            /** @description days after check-out that a document's photos are kept (what was read stays); default 30 */
            document_photo_days: number;
        };
        ScreeningSettingsUpdate: {
            /**
             * @description low: stricter thresholds; high: more lenient
             * @enum {string}
             */
            risk_tolerance?: "low" | "balanced" | "high";
            minimum_age?: number;
            disabled_checks?: ("background_check" | "credit_check" | "blacklist" | "payment_verification" | "identification_document" | "fraud_detection" | "adverse_media" | "social_verification" | "sanctions" | "house_rules")[];
            /** @description the name matcher score from which a listed name (blocklist, sanctions) is a possible match; default 0.9 (see POST /v1/screening/match) */
            name_match_threshold?: number;
            /** @description the identity documents accepted, as read from their photos: another kind is a finding; default passport and id_card */
            accepted_documents?: ("passport" | "id_card" | "visa")[];
            /** @description days after check-out that a document's photos are kept (what was read stays); default 30 */
            document_photo_days?: number;
        };
        HostProfile: {
            /** @description the name guests see on the portal and in messages */
            display_name: string | null;
            /** @description the colour of buttons and links, #rrggbb */
            accent_color: string | null;
            /** @description a data URL of a PNG, JPEG or WebP image, at most 256 KB */
            logo: string | null;
            /** @description shown in full on the house-rules screen; each guest’s acceptance keeps the version accepted */
            house_rules: string | null;
            house_rules_version: {
                /** @description the first 16 hex digits of the text’s SHA-256, as kept with each guest’s acceptance */
                version: string;
                updated_at: string;
            } | null;
            /** @description the rental agreement, shown in full before the guest accepts it */
            usage_agreement: string | null;
            usage_agreement_version: {
                /** @description the first 16 hex digits of the text’s SHA-256, as kept with each guest’s acceptance */
                version: string;
                updated_at: string;
            } | null;
        };
        HostProfileUpdate: {
            /** @description null clears */
            display_name?: string | null;
            accent_color?: string | null;
            logo?: string | null;
            /** @description null clears */
            house_rules?: string | null;
            /** @description null clears */
            usage_agreement?: string | null;
        };
        CheckInInstructions: {
            /** @description the address of the home */
            address: string | null;
            /** @description sent to the guest, never shown in what is kept of the message */
            door_code: string | null;
            /** @description the Wi-Fi network */
            wifi_name: string | null;
            /** @description sent to the guest, never shown in what is kept of the message */
            wifi_password: string | null;
            /** @description how to find the home and get in */
            directions: string | null;
            /** @description how many hours before the check-in day (00:00 UTC) the details go out; default 48 */
            send_hours_before: number;
        };
        CheckInInstructionsUpdate: {
            address?: string | null;
            door_code?: string | null;
            wifi_name?: string | null;
            wifi_password?: string | null;
            directions?: string | null;
            send_hours_before?: number;
        };
        AuthorityEstablishment: {
            /** @description ses: Spain's SES.HOSPEDAJES; alloggiati: Italy's Alloggiati Web; siba: Portugal's SIBA */
            system: "ses" | "alloggiati" | "siba";
            system_name: string;
            /** @description test: the authority’s test service or check, nothing filed; production: reports for real */
            mode: "test" | "production";
            /** @description null: the account’s default, for listings without their own */
            listing_id: string | null;
            /** @description SES: codigoArrendador */
            landlord_code: string | null;
            /** @description SES: codigoEstablecimiento */
            establishment_code: string | null;
            /** @description Alloggiati Web, short-let accounts: IdAppartamento */
            apartment_id: string | null;
            /** @description SIBA: the host’s NIPC (UnidadeHoteleira) */
            nipc: string | null;
            /** @description SIBA: the establishment’s number (Estabelecimento), 00 the first */
            establishment_number: string | null;
            unit: {
                /** @description Nome (at most 40) */
                name: string;
                /** @description Abreviatura (at most 15; default the name’s start) */
                abbreviation: string;
                /** @description Morada (at most 40) */
                address: string;
                /** @description Localidade (at most 30) */
                town: string;
                /** @description Codigo_Postal and Zona_Postal: 4 + 3 digits, 1000-001 */
                postcode: string;
                /** @description Telefone (at most 10 digits) */
                phone: string;
                /** @description Nome_Contacto (at most 40) */
                contact_name: string;
                /** @description Email_Contacto */
                contact_email: string | null;
            } | null;
            /** @description SES: certificates to trust besides the system’s are set */
            ca_bundle_set: boolean;
            /** @description when the credentials were last given; they are never answered back */
            credentials_set_at: string;
            /** @description when the authority last took the credentials */
            checked_at: string | null;
            /** @description passed: the authority’s test call took the credentials; not_reached: it could not be reached on saving (check_problem says why) */
            check: "passed" | "not_reached";
            check_problem: string | null;
            /** @description Alloggiati Web: the day its tables of places and documents were last fetched with these credentials (on saving, then weekly) */
            tables_as_of: string | null;
            /** @description Alloggiati Web: why its tables could not be fetched, when they could not */
            tables_problem: string | null;
            updated_at: string;
        };
        AuthorityEstablishmentInput: {
            system: "ses" | "alloggiati" | "siba";
            /** @description default: as before, or test for a new establishment */
            mode?: "test" | "production";
            /** @description SES: codigoArrendador (required) */
            landlord_code?: string;
            /** @description SES: codigoEstablecimiento (required) */
            establishment_code?: string;
            /** @description SES: PEM certificates to trust besides the system’s (the Ministry’s FNMT chain); null clears */
            ca_bundle?: string | null;
            /** @description Alloggiati Web, short-let accounts: IdAppartamento; null clears */
            apartment_id?: string | null;
            /** @description the web-service user (SES) or the Alloggiati Web user; left out with password and ws_key: the ones set before stay */
            username?: string;
            /** @description write-only */
            password?: string;
            /** @description Alloggiati Web: the WSKEY made in its portal (write-only) */
            ws_key?: string;
            /** @description SIBA: the host’s NIPC, 9 digits (required) */
            nipc?: string;
            /** @description SIBA: the establishment’s number, 00 the first (required) */
            establishment_number?: string;
            /** @description SIBA: the establishment’s details (required: all but abbreviation and contact_email); fields left out keep what was set */
            unit?: {
                /** @description Nome (at most 40) */
                name?: string;
                /** @description Abreviatura (at most 15; default the name’s start) */
                abbreviation?: string;
                /** @description Morada (at most 40) */
                address?: string;
                /** @description Localidade (at most 30) */
                town?: string;
                /** @description Codigo_Postal and Zona_Postal: 4 + 3 digits, 1000-001 */
                postcode?: string;
                /** @description Telefone (at most 10 digits) */
                phone?: string;
                /** @description Nome_Contacto (at most 40) */
                contact_name?: string;
                /** @description Email_Contacto (optional) */
                contact_email?: string | null;
            };
            /** @description SIBA: the access key (chave de acesso) its portal gives for web-service sending (write-only) */
            access_key?: string;
        };
        AuthorityReport: {
            id: string;
            /** @description 1 for the guest who booked, 2… for the others, in the order the portal asked them */
            guest: number;
            /** @description null once the guest was erased: the proof of filing is kept */
            guest_name: string | null;
            system: "ses" | "alloggiati" | "siba";
            system_name: string;
            /** @description the mode it went in (or, not sent yet, will go in): test, the authority’s test service, which files nothing; production, for real */
            mode: "test" | "production";
            /** @description the authority’s test service answered it: nothing was filed, and it goes again for real once the establishment is in production */
            tested: boolean;
            /** @description missing: the guest has not given all the authority needs (see missing); ready: goes on the arrival day; sent: waiting for the authority; accepted: filed (receipt); rejected: see error; not_required: the authority does not take this guest (SIBA: a Portuguese citizen), nothing is sent */
            state: "missing" | "ready" | "sent" | "accepted" | "rejected" | "not_required";
            /** @description not accepted, and past its deadline (24 hours from arrival; SIBA: 3 working days) */
            late: boolean;
            /** @description the portal’s field names the guest still has to give, or check_in_date/check_out_date the booking lacks */
            missing: string[];
            due_at: string;
            sent_at: string | null;
            answered_at: string | null;
            /** @description the proof of filing: SES, its codigoComunicacion; Alloggiati Web, the day (YYYY-MM-DD) of the receipt (Ricevuta) that lists the guest; SIBA gives none (proof.sent and proof.answer are the proof) */
            receipt: string | null;
            error: {
                /** @description the authority’s code (SES: codigo or tipoError), or unconfirmed: sent, its answer lost */
                code: string | null;
                /** @description the authority’s own words */
                message: string | null;
                /** @description what to do about it, in words */
                fix: string;
            } | null;
            /** @description the host’s proof of each send: on a booking’s reports, not in webhooks */
            proof?: {
                /** @description what was sent for the guest: SES, the part (XML) of the stay; Alloggiati Web, the guest’s row; SIBA, the file (MovimentoBAL); null before any send, or once the guest was erased */
                sent: string | null;
                /** @description what the authority answered for the guest (JSON, in its own field names) */
                answer: string | null;
            };
        };
        AuthorityReports: {
            reports: components["schemas"]["AuthorityReport"][];
        };
        AuthorityReportsSent: {
            reports: components["schemas"]["AuthorityReport"][];
            /** @description true: the stay is being sent now; false: nothing was sent (nothing_sent says why) */
            sent: boolean;
            nothing_sent: {
                code: "filed" | "on_its_way" | "missing" | "no_tables" | "not_arrived" | "too_late" | "changed";
                message: string;
            } | null;
        };
        NameMatchRequest: {
            /** @description the whole name, as written (any script); or first_name and last_name */
            name?: string;
            /** @description given name(s) */
            first_name?: string;
            /** @description family name(s) */
            last_name?: string;
            /**
             * Format: date
             * @description YYYY-MM-DD: a listed person born more than a year apart is left out
             */
            birth_date?: string;
            birth_year?: number;
            /** @description ISO 3166 alpha-2 nationality or residence; a listed country is named as evidence */
            country?: string;
            /** @description default: all */
            lists?: ("blocklist" | "sanctions")[];
        };
        NameMatchResponse: {
            query: {
                name: string;
                birth_year: number | null;
                country: string | null;
            };
            /** @description the account's name_match_threshold (screening settings) */
            threshold: number;
            lists: {
                list: string;
                date: string | null;
                /** @description names matched against, aliases included */
                names: number;
            }[];
            candidates: {
                /** @description 'blocklist', or the sanctions list's name */
                list: string;
                /** @description the list's data date */
                list_date: string | null;
                entry_id: string;
                /** @description the name that matched (an alias or the primary name) */
                listed_name: string;
                primary_name: string;
                /** @description 0 to 1; candidates at or above the threshold */
                score: number;
                /** @description which name matched which, token by token, and what moved the score */
                explanation: string;
                tokens: {
                    listed: string;
                    person: string | null;
                    /** @description family, given, middle, patronymic or particle */
                    role: string;
                    /** @description same, spelling, known variant, feminine form, one slip, two slips, same consonants, run together, initial, short form, goes by a middle name, second family name only or missing */
                    how: string;
                    similarity: number;
                }[];
                birth_years: number[];
                countries: string[];
                /** @description the blocklist entry's reason, or the sanctions programs */
                reason: string | null;
            }[];
        };
        /** @description the selfie compared with the document’s portrait; null without a selfie */
        FaceComparison: {
            /** @enum {string} */
            status: "pending" | "finished" | "failed";
            /** @description 0 to 1, 1 less the distance between the two faces’ descriptors; null while pending or where a face is missing */
            similarity: number | null;
            /** @description the similarity from which the faces are taken for one person (calibrated by npm run bench:faces) */
            threshold: number | null;
            /**
             * @description same_person: closer than the threshold calibrated at 1 % false matches; not_same_person: farther than almost any two photos of one person; cannot_tell: in between, or a face missing
             * @enum {string|null}
             */
            verdict: "same_person" | "not_same_person" | "cannot_tell" | null;
            /** @enum {string|null} */
            strength: "very_likely" | "likely" | "too_close" | "unlikely" | "no_face" | "several_faces" | null;
            /** @description the verdict in words: "very likely the same person", "cannot tell: …" */
            words: string;
            /** @description what kept the comparison from saying more, and what the guest can take again */
            reasons: {
                /** @enum {string} */
                code: "no_face" | "several_faces" | "face_too_small" | "too_dark" | "eyes_closed" | "no_document_face";
                message: string;
            }[];
            /** @description why the selfie could not be compared at all (failed) */
            error: string | null;
        };
        /** @description the selfie’s liveness signals, each with what it shows; null without a selfie, or until compared */
        Liveness: {
            signals: {
                /** @enum {string} */
                code: "one_face" | "not_the_document" | "head_turn" | "blink" | "screen";
                /** @enum {string} */
                result: "passed" | "failed" | "not_checked";
                /** @description what the signal shows when it passes, and no more */
                shows: string;
                /** @description what was seen, in words */
                message: string;
            }[];
            /** @description how many of the camera’s frames came with the selfie */
            frames: number;
            /** @description what the signals are and are not: signs of a live person, not proof */
            words: string;
        };
        IdentityVerification: {
            id: string;
            reservation_id: string | null;
            /** @enum {string} */
            status: "pending" | "finished" | "failed";
            document: components["schemas"]["ReadDocument"] | null;
            /** @description what kept the photo from being read whole; empty when every check digit holds */
            problems: {
                /**
                 * @description screen_photo: the photo is of a screen showing the document (said even where the zone reads); the others: why no zone could be read
                 * @enum {string}
                 */
                code: "screen_photo" | "too_dark" | "blurred" | "glare" | "zone_cut_off" | "no_document" | "zone_unreadable";
                /** @description what is wrong with the photo and how to take it again, in words for the guest */
                message: string;
            }[];
            /** @description why the photos could not be read at all (failed) */
            error: string | null;
            /** @description how long the reading took */
            ms: number | null;
            created_at: string;
            finished_at: string | null;
            images_deleted_at: string | null;
            face: components["schemas"]["FaceComparison"] | null;
            liveness: components["schemas"]["Liveness"] | null;
        };
        FaceComparisonResult: {
            /** @description 0 to 1; null where a photo shows no face */
            similarity: number | null;
            threshold: number;
            /** @description true or false where the faces say so clearly; null where it cannot be told (see reasons) */
            same_person: boolean | null;
            /**
             * @description same_person: closer than the threshold calibrated at 1 % false matches; not_same_person: farther than almost any two photos of one person; cannot_tell: in between, or a face missing
             * @enum {string}
             */
            verdict: "same_person" | "not_same_person" | "cannot_tell";
            words: string;
            reasons: {
                /** @enum {string} */
                code: "no_face" | "several_faces" | "face_too_small" | "too_dark" | "eyes_closed";
                /** @enum {string} */
                image: "image_a" | "image_b";
                message: string;
            }[];
        };
        Rule: {
            id: string;
            name: string;
            expression: string;
            action: string;
            enabled: boolean;
            created_at: string;
            updated_at: string;
        };
        RuleInput: {
            name: string;
            /** @description a CEL condition over the documented context (docs/rules.md) */
            expression: string;
            /**
             * @description what the rule does when its condition holds
             * @enum {string}
             */
            action: "review" | "decline" | "approve";
            enabled?: boolean;
        };
        RuleUpdate: {
            name?: string;
            /** @description a CEL condition over the documented context (docs/rules.md) */
            expression?: string;
            /**
             * @description what the rule does when its condition holds
             * @enum {string}
             */
            action?: "review" | "decline" | "approve";
            enabled?: boolean;
        };
        BlocklistEntry: {
            id: string;
            name: string | null;
            email: string | null;
            phone: string | null;
            document_number: string | null;
            reason: string;
            created_at: string;
        };
        BlocklistEntryInput: {
            name?: string;
            /** Format: email */
            email?: string;
            phone?: string;
            document_number?: string;
            reason: string;
        };
        BlocklistEntryUpdate: {
            name?: string;
            /** Format: email */
            email?: string;
            phone?: string;
            document_number?: string;
            reason?: string;
        };
        PhoneLookup: {
            countryCode: string | null;
            phoneNumber: string;
            nationalFormat: string;
            carrier: {
                name: string | null;
                type: string | null;
            };
            valid: boolean;
            /** @description false: the range's original carrier (a ported number has moved since) */
            carrier_is_current: boolean;
            location: string | null;
            /** @description where the answer came from, and the date of its data */
            source: {
                name: string;
                date: string | null;
                license?: string;
                url?: string;
            };
        };
        SocialLookup: {
            phoneNumber: {
                accountDetails?: {
                    [key: string]: {
                        registered: boolean | null;
                    };
                };
            };
            email: {
                accountDetails?: {
                    [key: string]: {
                        registered: boolean | null;
                    };
                };
            };
            /** @description where the answer came from, and the date of its data */
            source: {
                name: string;
                date: string | null;
                license?: string;
                url?: string;
            };
        };
        GeoipLookup: {
            country_code: string | null;
            country_name: string | null;
            city: string | null;
            region?: string | null;
            postal_code: string | null;
            time_zone_name: string | null;
            latitude: number | null;
            longitude: number | null;
            /** @description the special-purpose range of a reserved address (private, loopback, ...) */
            reserved: string | null;
            note?: string;
            /** @description where the answer came from, and the date of its data */
            source: {
                name: string;
                date: string | null;
                license?: string;
                url?: string;
            };
        };
        SexOffenderLookup: {
            items: {
                id: string;
                name: string;
                fname: string;
                lname: string;
                city: string | null;
                county: string | null;
                state: string;
                zip: string | null;
                dob: string | null;
                timestamp: string | null;
                imageURL: string | null;
                charge: string[];
                aliases: string[];
                explanation: string;
                /** @description where the answer came from, and the date of its data */
                source: {
                    name: string;
                    date: string | null;
                    license?: string;
                    url?: string;
                };
            }[];
        };
        GeocodeLookup: {
            address: string;
            street: string | null;
            city: string | null;
            state: string | null;
            country: string | null;
            country_code: string | null;
            zipcode: string | null;
            timezone: string | null;
            geo: {
                lat: number | null;
                lon: number | null;
            };
            /** @description address, city, country or none: how much of the address was placed */
            precision: string;
            /** @description where the answer came from, and the date of its data */
            source: {
                name: string;
                date: string | null;
                license?: string;
                url?: string;
            };
        };
        BackgroundCheckSubmitted: {
            id: string;
            start_date: string;
            /** @description PENDING, then FINISHED (or FAILED, with error) */
            status: string;
            type: string;
        };
        BackgroundCheck: {
            id: string;
            start_date: string;
            stop_date: string | null;
            /** @description PENDING, then FINISHED (or FAILED, with error) */
            status: string;
            /** @description CLEARED or REVIEW once finished */
            risk_status: string | null;
            type: string;
            /** @description the PDF report, served with the API key */
            pdf: string | null;
            report_items: {
                name: string;
                /** @description CLEAR, REVIEW, NOT_RUN (no data source configured), or PENDING (waiting on its provider: Checkr, on the person) */
                status: string;
                items: {
                    title: string;
                    subtitle?: string;
                    description?: string;
                    tags: string[];
                    images?: string[];
                }[];
            }[];
            error?: string;
        };
        AdverseMediaSearchStarted: {
            id: string;
            /** @description PENDING, then FINISHED (or FAILED, with error) */
            status: string;
            startDate: string;
        };
        AdverseMediaReport: {
            id: string;
            /** @description PENDING, then FINISHED (or FAILED, with error) */
            status: string;
            startDate: string;
            stopDate: string | null;
            riskCategories: ("Discrimination" | "Fraud or Financial Crime" | "Harassment" | "Violence" | "Conflicts or Litigation" | "Other News")[];
            findings: {
                title: string;
                snippet: string;
                /** @description which risk terms stood how near the name, and where and when it was published */
                summary: string;
                displayLink: string | null;
                link: string;
                image: string | null;
                publishedAt: string | null;
                riskCategories: string[];
                source: {
                    name: string;
                    date: string | null;
                    license?: string;
                    url?: string;
                };
            }[];
            error?: string;
        };
        AuditLine: {
            id: number;
            /** @description when (ISO 8601, UTC) */
            at: string;
            actor: {
                /**
                 * @description a person in the console, an API key, or the operator (command line, the service itself)
                 * @enum {string}
                 */
                type: "user" | "api_key" | "operator";
                id: string;
                /** @description as it was then */
                name: string;
            } | null;
            /** @description what was done: 'reservation.approved', 'rules.changed', 'user.invited', … */
            action: string;
            /** @description the object it was done to */
            subject_id: string | null;
            /** @description more about it, never guest personal data */
            detail: unknown;
        };
    };
    responses: never;
    parameters: {
        /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
        IdempotencyKey: string;
    };
    requestBodies: never;
    headers: {
        /** @description The id of this request in the service log (`req_…`); sent back as given in `x-request-id` */
        RequestId: string;
        /** @description Requests allowed per minute for this API key (when GUESTSCREEN_RATE_LIMIT_PER_MINUTE is on, as by default) */
        RateLimitLimit: number;
        /** @description Requests left in the current minute */
        RateLimitRemaining: number;
        /** @description Seconds until the minute ends and the count starts again */
        RateLimitReset: number;
        /** @description Seconds to wait before trying again */
        RetryAfter: number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Liveness: the process answers */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description The request did not arrive within GUESTSCREEN_HEADERS_TIMEOUT_SECONDS (headers) or GUESTSCREEN_REQUEST_TIMEOUT_SECONDS (all of it); the connection is closed */
            408: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    getReadiness: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Readiness: the database answers; with the data sources installed */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Readiness"];
                };
            };
            /** @description The request did not arrive within GUESTSCREEN_HEADERS_TIMEOUT_SECONDS (headers) or GUESTSCREEN_REQUEST_TIMEOUT_SECONDS (all of it); the connection is closed */
            408: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Not ready: the database does not answer, or the process is shutting down */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCurrentAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The calling account; validates the key */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listChildAccounts: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Direct child accounts of the caller, paged */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountPage"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listApiKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description API keys of every account in the caller's subtree, the caller included */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ApiKeys"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createChildAccount: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountRegistrationRequest"];
            };
        };
        responses: {
            /** @description Create a child account of the caller */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RegisteredAccount"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateAccount: {
        parameters: {
            query?: {
                status?: "active" | "disabled";
                suspended?: "true" | "false";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountUpdateRequest"];
            };
        };
        responses: {
            /** @description Update an account the caller manages; status and suspended change its state */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createSignupLink: {
        parameters: {
            query: {
                /** @description `api` or a configured PMS name */
                pms: string;
                /** @description where to send the new account after signup */
                redirect?: string;
                hidepw?: "true" | "false" | "1" | "0";
            };
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A single-use self-signup link that creates a child account of the caller */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignupLink"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listWebhooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Registered webhooks and the signing secret (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Webhooks"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    registerWebhook: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountWebhooksRequest"];
            };
        };
        responses: {
            /** @description Register (or replace) the URL of one webhook kind */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    unregisterWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountWebhookRemovalRequest"];
            };
        };
        responses: {
            /** @description Unregister the URL of one webhook kind */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Webhook and callback deliveries with every attempt, newest first (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryPage"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    replayWebhookDelivery: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Send a delivery's event again, to the target's current URL (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                        id: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Replace the signing secret; deliveries carry both signatures for 24 hours (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        signing_secret: string;
                        previous_secret_valid_until: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getGuestPortalScreens: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path: {
                /** @description the config_key */
                key: "guest_portal_screens_by_source" | "guest_portal_screens_for_repeat_guests" | "guest_portal_screens_default";
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Read the guest-portal screen settings; with a JSON body (as the spec has it), update them */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountSettingsResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateGuestPortalScreens: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path: {
                /** @description the config_key */
                key: "guest_portal_screens_by_source" | "guest_portal_screens_for_repeat_guests" | "guest_portal_screens_default";
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AccountSettingsRequest"];
            };
        };
        responses: {
            /** @description Update the guest-portal screen settings (beyond the spec: the same update as a PUT) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AccountSettingsResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    searchReservations: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
                status?: "CONFIRMED" | "CANCELED" | "INQUIRY" | "any";
                search?: string;
                /** @description comma-separated listing ids */
                listings?: string;
                guestportal_completed?: "true" | "false";
                /** @description 1: check-out today or later; 0: before today */
                active?: "1" | "0";
                pending_review?: "true" | "false";
                /** @description beyond the spec: the latest verdict's risk colour */
                risk_color?: "green" | "yellow" | "orange" | "red";
                /** @description comma-separated guest e-mails */
                emails?: string;
                source?: string;
                /** @description YYYY-MM-DD */
                startDate?: string;
                /** @description YYYY-MM-DD */
                endDate?: string;
                dateField?: "check_in_date" | "check_out_date" | "created_at" | "updated_at";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Search reservations */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationPage"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createReservation: {
        parameters: {
            query?: {
                /** @description URL that receives the screening result */
                callback?: string;
                sync?: "true" | "false" | "1" | "0";
                skip_gp?: "true" | "false" | "1" | "0";
            };
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReservationCreateRequest"];
            };
        };
        responses: {
            /** @description Create a reservation */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getReservation: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A reservation by id, confirmation code (pms) or PMS id (pms + usepmsid) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateReservation: {
        parameters: {
            query?: {
                /** @description URL that receives the screening result */
                callback?: string;
                sync?: "true" | "false" | "1" | "0";
                skip_gp?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReservationUpdateRequest"];
            };
        };
        responses: {
            /** @description Update a reservation: given fields replace, guest and identification merge key by key */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Reservation"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    eraseReservation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Erase a reservation and its guest's personal data (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getReservationSummary: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Verification summary */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationSummaryResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getReservationStatus: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Verification status */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationStatusResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setManualDecision: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReservationsVerificationChangeRequest"];
            };
        };
        responses: {
            /** @description Approve or decline manually; can be changed later */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationStatusResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getReservationScreens: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Guest-portal screens resolved from the account's settings */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationScreensResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listReservationNotes: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Notes: system, manual decisions, hosts */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notes"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    addReservationNote: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    text: string;
                };
            };
        };
        responses: {
            /** @description Add a host note (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Notes"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listReservationPayments: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Payments derived from payment events */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Payments"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    recordPaymentEvent: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PaymentEventRequest"];
            };
        };
        responses: {
            /** @description Record a payment event; idempotent on (event_source, event_id) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listGuestMessages: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Queued and sent guest messages */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GuestMessages"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    dismissSanctionsMatch: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SanctionsDismissalRequest"];
            };
        };
        responses: {
            /** @description Dismiss a possible sanctions match as a different person: remembered for the guest and the entry until a list changes the entry, noted, and the reservation screened again (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationStatusResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    screenReservation: {
        parameters: {
            query?: {
                sync?: "true" | "false" | "1" | "0";
            };
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Run screening again now (beyond the spec); with sync=1, answer with the new status */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationStatusResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listScreeningRuns: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The screening runs, newest first; a host's manual decision (approve or decline) stands among them where its time puts it, as a record of trigger manual with decided_by: the verdict it set, who decided and why, and the checks of the run it was made on */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @description created, updated, payment_event, manual, guest_portal, list_update (a sanctions import changed an entry the guest may be) or document_read (an identity document photo was read, or a selfie compared with it) */
                        trigger: string;
                        engine_version: string;
                        /** @description SHA-256 of everything the checks saw; equal digests give equal verdicts */
                        inputs_digest: string;
                        verdict: {
                            status: string;
                            score: number;
                            risk_color: string;
                            reason: string;
                            trace: {
                                risk: string;
                                check: string;
                                code: string;
                                /** @description the finding's strength (context, weak, moderate, strong, decisive), or rule for a business rule; records of engine version 1 have a weight instead */
                                strength?: string;
                                weight?: number;
                            }[];
                        };
                        checks: {
                            [key: string]: {
                                status: string;
                                value: string;
                                help: string;
                                /** @description the strongest finding of the check (docs/verdicts.md) */
                                strength?: string;
                                findings: {
                                    code: string;
                                    text: string;
                                    strength?: string;
                                    weight?: number;
                                    recommendation?: string;
                                }[];
                            };
                        };
                        rules_fired: string[];
                        /** @description what the run read of the identity document: kept with the decision, never the photo. Absent when no document had been read */
                        document?: {
                            /** @description the reading the run used (GET /v1/identity-verifications/{id}) */
                            verification_id: string;
                            /** @description the fields read from the zone as the run saw them; null when the photo could not be read */
                            read: components["schemas"]["ReadDocument"] | null;
                            /** @description what kept the photo from being read whole (the reading's problem codes) */
                            problems: string[];
                            face?: {
                                face: {
                                    similarity: number | null;
                                    threshold: number;
                                    /**
                                     * @description same_person: closer than the threshold calibrated at 1 % false matches; not_same_person: farther than almost any two photos of one person; cannot_tell: in between, or a face missing
                                     * @enum {string}
                                     */
                                    verdict: "same_person" | "not_same_person" | "cannot_tell";
                                    /** @enum {string} */
                                    strength: "very_likely" | "likely" | "too_close" | "unlikely" | "no_face" | "several_faces";
                                    problems: ("no_face" | "several_faces" | "face_too_small" | "too_dark" | "eyes_closed")[];
                                    document_face: boolean;
                                };
                                liveness: {
                                    signals: {
                                        code: string;
                                        /** @enum {string} */
                                        result: "passed" | "failed" | "not_checked";
                                    }[];
                                    frames: number;
                                };
                            } | null;
                        };
                        /** @description who decided, on a record of trigger manual: a person in the console, or an API key */
                        decided_by?: {
                            /** @description user or api_key */
                            type: string;
                            id: string;
                            name: string;
                        };
                        /** @description the reason they gave, on a record of trigger manual */
                        reason?: string | null;
                        created_at: string;
                    }[];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getGuestPortal: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Guest-portal details */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReservationGuestPortalResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getGuestPortalFile: {
        parameters: {
            query?: {
                /** @description when given, the path id is a confirmation code */
                pms?: string;
                usepmsid?: "true" | "false" | "1" | "0";
            };
            header?: never;
            path: {
                id: string;
                file_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The file, with its content type */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": unknown;
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getScreeningSettings: {
        parameters: {
            query?: {
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Screening settings: risk tolerance, minimum age, disabled checks, name match threshold (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScreeningSettings"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateScreeningSettings: {
        parameters: {
            query?: {
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScreeningSettingsUpdate"];
            };
        };
        responses: {
            /** @description Change screening settings; given fields replace, others stay (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ScreeningSettings"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getHostProfile: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description What guests see of the host: name, logo, accent colour, house rules, rental agreement (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostProfile"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateHostProfile: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostProfileUpdate"];
            };
        };
        responses: {
            /** @description Change what guests see of the host; given fields replace, null clears, others stay (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostProfile"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getListingHostProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A listing’s own words and brand; a field left null falls back to the account’s (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostProfile"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateListingHostProfile: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostProfileUpdate"];
            };
        };
        responses: {
            /** @description Change a listing’s own words and brand; null clears a field back to the account’s (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["HostProfile"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getCheckInInstructions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A listing’s check-in instructions, sent to each guest only once the booking is verified (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckInInstructions"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateCheckInInstructions: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckInInstructionsUpdate"];
            };
        };
        responses: {
            /** @description Set a listing’s check-in instructions (stored encrypted); given fields replace, null clears; verified upcoming bookings get them in time (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CheckInInstructions"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAccountAuthorityEstablishment: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account’s default police system and identifiers, never its credentials (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityEstablishment"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setAccountAuthorityEstablishment: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthorityEstablishmentInput"];
            };
        };
        responses: {
            /** @description Set the account’s default police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityEstablishment"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    removeAccountAuthorityEstablishment: {
        parameters: {
            query?: {
                /** @description an account the caller manages; default the caller */
                user_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stop reporting by the account’s default (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getListingAuthorityEstablishment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A listing’s own police system and identifiers, never its credentials (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityEstablishment"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    setListingAuthorityEstablishment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthorityEstablishmentInput"];
            };
        };
        responses: {
            /** @description Set a listing’s police system: checked on saving by the authority’s own test call; starts in test mode (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityEstablishment"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    removeListingAuthorityEstablishment: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                listing_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Stop a listing’s own reporting: it falls back to the account’s default (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAuthorityReports: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Each guest’s police report: missing, ready, sent, accepted (with the receipt) or rejected, and late (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityReports"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    sendAuthorityReports: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Send now: each guest’s report planned from the portal’s answers and sent at once, whatever the day; one filed is not sent again unless its guest changed (beyond the spec) */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuthorityReportsSent"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAuthorityReceipt: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                day: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/pdf */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    matchName: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["NameMatchRequest"];
            };
        };
        responses: {
            /** @description Match a person's name against the account's blocklist and the imported sanctions lists, with why each candidate matched (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["NameMatchResponse"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    submitIdentityDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Send photos of the guest's passport or ID card to be read (multipart/form-data: front, and back for an ID card), with a selfie to compare with its portrait */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "pending";
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not ready: the database does not answer, or the process is shutting down */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getIdentityVerification: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A reading of identity document photos: status, the fields read with their check digits, the photo problems in words */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentityVerification"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    readIdentityDocument: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Read one photo of a passport or ID card and answer what it says, with no reservation (multipart/form-data: image) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["IdentityVerification"];
                };
            };
            /** @description Read one photo of a passport or ID card and answer what it says, with no reservation (multipart/form-data: image) */
            202: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        /** @enum {string} */
                        status: "pending";
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not ready: the database does not answer, or the process is shutting down */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    compareFaces: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Compare the faces of two photos (multipart/form-data: image_a, image_b): the same person, not the same person, or cannot tell */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FaceComparisonResult"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is larger than the limit (1 MiB; uploads: their own limit) */
            413: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The Idempotency-Key was used before with a different request, the values contradict each other, or a photo is of a type read but cannot be used (too small, too many pixels) */
            422: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Not ready: the database does not answer, or the process is shutting down */
            503: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listRules: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's business rules */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"][];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createRule: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuleInput"];
            };
        };
        responses: {
            /** @description Create a rule; the expression must compile */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One rule */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["RuleUpdate"];
            };
        };
        responses: {
            /** @description Change a rule: name, expression, action or enabled */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Rule"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteRule: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a rule */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    dryRunRule: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description a CEL condition over the documented context (docs/rules.md) */
                    expression: string;
                    /**
                     * @description what the rule does when its condition holds
                     * @enum {string}
                     */
                    action: "review" | "decline" | "approve";
                    /** @description newest reservations to try, default 1000 */
                    limit?: number;
                };
            };
        };
        responses: {
            /** @description Evaluate a candidate rule over the account's screened reservations without changing anything */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        evaluated: number;
                        hits: number;
                        /** @description hits whose verification status would change */
                        changed: number;
                        /** @description the fields the condition names that a booking may not know (an age with no birth date given), with how many hits hold with one unknown */
                        unknown: {
                            field: string;
                            words: string;
                            /** @description hits for which the booking does not know this field */
                            hits: number;
                        }[];
                        items: {
                            id: string;
                            confirmation_code: string | null;
                            guest_name: string | null;
                            current_status: string;
                            would_become: string;
                        }[];
                        errors: {
                            id: string;
                            error: string;
                        }[];
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description A request with this Idempotency-Key is still in progress, or the object is in a state that forbids the change; `Retry-After` may say when to try again */
            409: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listBlocklist: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's blocklist, newest first */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: number;
                        size: number;
                        total: number;
                        items: components["schemas"]["BlocklistEntry"][];
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createBlocklistEntry: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BlocklistEntryInput"];
            };
        };
        responses: {
            /** @description Block a guest by name, e-mail, phone and/or document number */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlocklistEntry"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getBlocklistEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One entry */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlocklistEntry"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    updateBlocklistEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BlocklistEntryUpdate"];
            };
        };
        responses: {
            /** @description Change an entry: given fields replace */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BlocklistEntry"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteBlocklistEntry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Remove an entry */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupPhone: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description international format, URL-encoded */
                number: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Phone number: validity, line type, carrier */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PhoneLookup"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupSocial: {
        parameters: {
            query?: never;
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email?: string;
                    phoneNumber?: string;
                };
            };
        };
        responses: {
            /** @description Which platforms an e-mail or a phone number is registered on */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SocialLookup"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupBreaches: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description URL-encoded */
                email: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Data breaches an e-mail address appeared in */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        Name: string;
                        Domain: string | null;
                        BreachDate: string | null;
                        /** @description where the answer came from, and the date of its data */
                        source: {
                            name: string;
                            date: string | null;
                            license?: string;
                            url?: string;
                        };
                    }[];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupWhois: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A domain's registration (RDAP) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        server: string;
                        data: {
                            domainName: string;
                            registrar: string | null;
                            creationDate: string | null;
                            expirationDate: string | null;
                        };
                        /** @description where the answer came from, and the date of its data */
                        source: {
                            name: string;
                            date: string | null;
                            license?: string;
                            url?: string;
                        };
                    }[];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupDomain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description domain name */
                domain: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The company behind a domain */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        name: string;
                        country: string | null;
                        industry: string | null;
                        size: string | null;
                        linkedin_url: string | null;
                        founded: string | null;
                        /** @description where the answer came from, and the date of its data */
                        source: {
                            name: string;
                            date: string | null;
                            license?: string;
                            url?: string;
                        };
                    }[];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupGeoip: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description IPv4 or IPv6 */
                ip: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where an IP address is */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeoipLookup"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupSexOffender: {
        parameters: {
            query: {
                fname: string;
                lname: string;
                /** @description YYYY-MM-DD */
                dob: string;
                /** @description US state code */
                state: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Possible matches in sex-offender registries, for a person to review */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SexOffenderLookup"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupGeocode: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description URL-encoded */
                address: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where a street or mailing address is */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GeocodeLookup"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    lookupIpThreats: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description IPv4 or IPv6 */
                ip: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Threat feeds and reports that list an IP address */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        ip: string;
                        title: string;
                        link: string | null;
                        source: string;
                        source_date: string | null;
                        timestamp: string | null;
                        tags: string[];
                        reasons: string[];
                    }[];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    submitBackgroundCheck: {
        parameters: {
            query: {
                /** @description globalcheck */
                type: "globalcheck";
            };
            header?: {
                /** @description Any 1 to 255 characters, unique per intended request (a UUID). The same key with the same request within 24 hours answers as the first did without applying it again; with another request, 422; while the first is still running, 409 */
                "Idempotency-Key"?: components["parameters"]["IdempotencyKey"];
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the person's given name */
                    first_name: string;
                    middle_name?: string;
                    /** @description the person's family name */
                    last_name: string;
                    /** @description YYYY */
                    year_of_birth?: number | string;
                    /** @description ISO 3166 alpha-2 */
                    country?: string;
                    city?: string;
                    state?: string;
                    email?: string;
                    phone?: string;
                };
            };
        };
        responses: {
            /** @description Start a background check (answers PENDING; results and a PDF follow) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BackgroundCheckSubmitted"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listBackgroundChecks: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
                status?: "PENDING" | "FINISHED" | "FAILED";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's background checks, newest first, without their findings (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: number;
                        size: number;
                        total: number;
                        items: {
                            id: string;
                            start_date: string;
                            stop_date: string | null;
                            /** @description PENDING, then FINISHED (or FAILED, with error) */
                            status: string;
                            risk_status: string | null;
                            type: string;
                            pdf: string | null;
                            /** @description the URL of its results, findings included */
                            results: string;
                        }[];
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getBackgroundCheck: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A background check: status, risk status, findings by source, PDF link */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BackgroundCheck"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteBackgroundCheck: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete a background check, its report and PDF (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getBackgroundCheckPdf: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description application/pdf */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": string;
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    startAdverseMediaSearch: {
        parameters: {
            query: {
                /** @description the person's given name */
                first_name: string;
                middle_name?: string;
                /** @description the person's family name */
                last_name: string;
                /** @description YYYY */
                year_of_birth?: number | string;
                /** @description ISO 3166 alpha-2 */
                country?: string;
                city?: string;
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Start an adverse-media search for a person (answers PENDING; the report follows) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdverseMediaSearchStarted"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAdverseMediaReports: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
                status?: "PENDING" | "FINISHED" | "FAILED";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The account's adverse-media reports, newest first, without their findings (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: number;
                        size: number;
                        total: number;
                        items: {
                            id: string;
                            /** @description PENDING, then FINISHED (or FAILED, with error) */
                            status: string;
                            startDate: string;
                            stopDate: string | null;
                            /** @description the URL of the report, findings included */
                            results: string;
                        }[];
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAdverseMediaReport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description An adverse-media report */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AdverseMediaReport"];
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    deleteAdverseMediaReport: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Delete an adverse-media report and the person it names (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        message: string;
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                /** @description offset, default 0 */
                from?: number;
                /** @description page size, default 20, at most 100 */
                size?: number;
                /** @description a person's or key's id */
                actor?: string;
                /** @description an action, or the start of one ending in a dot ('user.') */
                action?: string;
                /** @description from this date or time (inclusive) */
                from_date?: string;
                /** @description up to this date (the whole day) or time */
                to_date?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Who did what in this account, latest first (beyond the spec) */
            200: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        from: number;
                        size: number;
                        total: number;
                        items: components["schemas"]["AuditLine"][];
                    };
                };
            };
            /** @description The request is malformed or a value is out of range; `error` names the field and the problem */
            400: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No `x-api-key` header, or a key that is not valid or was revoked */
            401: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The caller's account is suspended or disabled, or the operation is for resellers */
            403: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description No such object among the accounts the caller manages (another account’s objects are never shown to exist) */
            404: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The body is not `application/json` (uploads: not `multipart/form-data`, or a file that is not a JPEG, PNG, WebP or BMP photo; `error` says which) */
            415: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests with this key in the minute, or too many failed authentications from this address; `Retry-After` says when to try again */
            429: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    "retry-after": components["headers"]["RetryAfter"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description An internal error; `request_id` names it in the service log */
            500: {
                headers: {
                    "x-request-id": components["headers"]["RequestId"];
                    "x-ratelimit-limit": components["headers"]["RateLimitLimit"];
                    "x-ratelimit-remaining": components["headers"]["RateLimitRemaining"];
                    "x-ratelimit-reset": components["headers"]["RateLimitReset"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    onReservationWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Reservation"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAuthorityReport: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["AuthorityReportEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onScreeningWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScreeningEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onCallback: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ScreeningEvent"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onGuestPortalWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ReservationGuestPortalResponse"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onStargateWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    id: string;
                    /** @description beyond the spec: queued, sent, canceled */
                    status: string;
                    email: string;
                    phone: string;
                    tag: string;
                    method: string;
                    via: string;
                    sendAfter: string;
                    created: string;
                    updated: string;
                    reservation_id: string;
                    listing_id: string;
                    confirmation_code: string;
                    message: {
                        subject: string;
                        text: string;
                        html: string;
                    };
                };
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onAccountWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["Account"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onBackgroundCheckWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["BackgroundCheck"];
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    onListingWebhook: {
        parameters: {
            query?: never;
            header: {
                /** @description The event id (`evt_…`): the same on every attempt, so a receiver can drop repeats */
                "webhook-id": string;
                /** @description Unix seconds when this attempt was signed; refuse one far from now */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}` with the secret of GET /v1/accounts/webhooks (`whsec_…`, Standard Webhooks); during a secret rotation, one for each secret */
                "webhook-signature": string;
                /** @description The event type, also in the body of most events */
                "webhook-event": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the listing id the reservations give */
                    id: string;
                    /** @description the same, under the reservation field name */
                    listing_id: string;
                    /** @description the listing's name */
                    listing_nickname: string | null;
                    /** @description listing.renamed: the name before */
                    previous_nickname: string | null;
                    /** @description the listing's IANA time zone */
                    listing_timezone_name: string | null;
                    /** @description listing.created: the reservation that named it first */
                    first_seen_reservation_id: string | null;
                };
            };
        };
        responses: {
            /** @description Received. Any 2xx ends the delivery */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Gone: the service stops delivering to this URL and turns the webhook off */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
