import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Deps } from '../../deps.js';
import { StringEnum } from '../../http/validation.js';
import { MAX_PORTAL_ALERT_HOURS, setPortalAlertHours } from '../../modules/alerts/service.js';
import { OPTIONAL_CHECKS, readScreeningSettings, writeScreeningSettings } from '../../modules/screening/settings.js';
import { ScreeningSettingsUpdate } from '../../modules/screening/settings-routes.js';
import { SCREENS, type Screen } from '../../modules/guests/index.js';
import { SCREEN_SETTINGS, type ScreenSetting } from '../../modules/settings/screens.js';
import { readScreenSettings, writeScreenSettings } from '../../modules/settings/service.js';
import { accountProfile, writeAccountProfile } from '../../modules/listings/profile.js';
import { acceptLogos, ProfileFields, ProfileForm, profileChange, sendLogo } from './listings.js';
import { CHECK_TITLES, SCREEN_TITLES } from './reservation.js';
import { PoliceSettings, policeOf, POLICE_DONE } from './police.js';
import { ConsolePage, CsrfField, Head, seeOther, show, PostForm } from './shell.js';
import { importCommand, sanctionsListAges, type ListAge } from '../../modules/system/sources.js';
import { dateInWords } from '../../lib/host-messages.js';

const DONE: Record<string, string> = {
  screening: 'Screening settings saved. They apply from the next screening.',
  portal: 'Guest portal screens saved. They apply to portals opened from now on.',
  alerts: 'Saved. Your team is told of unfinished guest portals at that time.',
  profile: 'Saved. Guests see it from their next page, at every listing without words of its own.',
};
const TOLERANCE_WORDS = { low: 'Low: review and decline sooner', balanced: 'Balanced', high: 'High: fewer reviews' } as const;
const SETTING_WORDS: Record<ScreenSetting, string> = { required: 'Required', optional: 'Optional', disabled: 'Not asked' };
const DEFAULT_KEY = 'guest_portal_screens_default';

const ScreensForm = Type.Object({ ...Object.fromEntries(SCREENS.map((s) => [s, Type.Optional(StringEnum(SCREEN_SETTINGS))])), ...CsrfField });
const ScreeningForm = Type.Composite([
  Type.Omit(ScreeningSettingsUpdate, ['disabled_checks']),
  Type.Object({ enabled_checks: Type.Optional(Type.Array(StringEnum(OPTIONAL_CHECKS), { uniqueItems: true })), ...CsrfField }),
]);

/** The sanctions lists the screening reads, each with its date, and a warning for those older than the service's setting. */
function ListsPanel({ deps, lists }: { deps: Deps; lists: ListAge[] }) {
  return (
    <section class="panel" aria-labelledby="lists-h">
      <h2 id="lists-h">Sanctions lists</h2>
      {lists.length ? (
        <>
          <p class="muted">The screening looks guests up on these lists, as they stood on their date. Whoever runs this service imports newer copies.</p>
          <table class="list cards" id="lists">
            <Head columns={['List', 'Dated', 'Names', 'Age']} />
            <tbody>
              {lists.map((l) => (
                <tr data-source={l.source}>
                  <td data-label="List">{l.source}</td>
                  <td data-label="Dated">{dateInWords(l.dataDate)}</td>
                  <td data-label="Names">{l.names.toLocaleString('en')}</td>
                  <td data-label="Age">{l.stale ? <span class="badge orange">{l.days} days: out of date</span> : l.days === null ? '—' : `${l.days} days`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {lists
            .filter((l) => l.stale)
            .map((l) => (
              <p class="warning" role="status" data-stale={l.source}>
                {l.source} is {l.days} days old; this service warns after {deps.config.sanctionsMaxAgeDays} days (<code>GUESTSCREEN_SANCTIONS_MAX_AGE_DAYS</code>). People listed after{' '}
                {dateInWords(l.dataDate)} are not found. Import a newer copy with <code>{importCommand(l.source)}</code>, or set <code>GUESTSCREEN_SANCTIONS_REFRESH_URLS</code> and the worker fetches
                it.
              </p>
            ))}
        </>
      ) : (
        <p class="warning" role="status">
          No sanctions list is imported: the sanctions check answers “Not checked”. Whoever runs this service imports one with <code>guestscreen data import sanctions FILE</code>.
        </p>
      )}
    </section>
  );
}

export const settingsPages =
  (deps: Deps): FastifyPluginAsyncTypebox =>
  async (app) => {
    await acceptLogos(app);

    app.get('/console/settings', { schema: { hide: true, querystring: Type.Object({ done: Type.Optional(Type.String({ maxLength: 20 })) }) } }, async (request, reply) => {
      const [screening, portal, profile, lists, police] = await Promise.all([
        readScreeningSettings(deps, request.account),
        readScreenSettings(deps, request.account, DEFAULT_KEY),
        accountProfile(deps.db, request.account.id),
        sanctionsListAges(deps),
        policeOf(deps, request.account.id, ''),
      ]);
      const screens = (portal.config_data[0]?.guest_portal_screens ?? {}) as Partial<Record<Screen, ScreenSetting>>;
      return show(request, reply, (ctx) => (
        <ConsolePage ctx={ctx} title="Settings" section="settings" notice={request.query.done ? (DONE[request.query.done] ?? POLICE_DONE[request.query.done]) : undefined}>
          <h1>Settings</h1>
          <section class="panel" aria-labelledby="screening-h">
            <h2 id="screening-h">Screening</h2>
            <PostForm ctx={ctx} action="/console/settings/screening">
              <div class="grid2">
                <div>
                  <label for="s_tolerance">Risk tolerance</label>
                  <select id="s_tolerance" name="risk_tolerance">
                    {(['low', 'balanced', 'high'] as const).map((t) => (
                      <option value={t} selected={t === screening.risk_tolerance}>
                        {TOLERANCE_WORDS[t]}
                      </option>
                    ))}
                  </select>
                  <label for="s_age">Minimum age of the guest</label>
                  <input id="s_age" name="minimum_age" type="number" min={0} max={120} step={1} value={String(screening.minimum_age)} required />
                  <label for="s_names">How alike a name must be to a listed one (0.75 to 1)</label>
                  <input id="s_names" name="name_match_threshold" type="number" min={0.75} max={1} step={0.01} value={String(screening.name_match_threshold)} required />
                </div>
                <fieldset>
                  <legend>Checks to run</legend>
                  {OPTIONAL_CHECKS.map((c) => (
                    <label class="check">
                      <input type="checkbox" name="enabled_checks" value={c} checked={!screening.disabled_checks.includes(c)} /> <span>{CHECK_TITLES[c]}</span>
                    </label>
                  ))}
                </fieldset>
              </div>
              <button type="submit">Save screening settings</button>
            </PostForm>
          </section>
          <ListsPanel deps={deps} lists={lists} />
          <section class="panel" aria-labelledby="portal-h">
            <h2 id="portal-h">Guest portal screens</h2>
            <p class="muted">What the guest portal asks every guest. Screens for one booking source or for returning guests can be set through the API.</p>
            <PostForm ctx={ctx} action="/console/settings/portal">
              <div class="filters">
                {SCREENS.map((s) => (
                  <div>
                    <label for={`p_${s}`}>{SCREEN_TITLES[s]}</label>
                    <select id={`p_${s}`} name={s}>
                      {SCREEN_SETTINGS.map((v) => (
                        <option value={v} selected={(screens[s] ?? 'disabled') === v}>
                          {SETTING_WORDS[v]}
                        </option>
                      ))}
                    </select>
                  </div>
                ))}
              </div>
              <button type="submit">Save portal screens</button>
            </PostForm>
          </section>
          <PoliceSettings ctx={ctx} base="/console/settings/authority" e={police} />
          <p class="muted">The account’s police reporting is the default of every listing without its own, set on the listing’s page.</p>
          <section class="panel" aria-labelledby="profile-h">
            <h2 id="profile-h">What guests see</h2>
            <p class="muted">
              Your name, colour, logo, house rules and rental agreement on the guest portal and in messages, at every listing without words of its own (<a href="/console/listings">Listings</a>).
            </p>
            <ProfileFields ctx={ctx} action="/console/settings/host-profile" profile={profile} logoUrl="/console/settings/logo" button="Save what guests see" />
          </section>
          <section class="panel" aria-labelledby="alerts-h">
            <h2 id="alerts-h">Telling your team</h2>
            <p class="muted">
              Everyone is told by e-mail when a guest turns red or orange, as each chose under their name. Guests who have not finished the guest portal are told too, this long before the day they
              check in:
            </p>
            <PostForm ctx={ctx} action="/console/settings/alerts">
              <label for="a_hours">Hours before the check-in day (0: never)</label>
              <input id="a_hours" name="portal_alert_hours" type="number" min="0" max={String(MAX_PORTAL_ALERT_HOURS)} step="1" required value={String(ctx.account.portal_alert_hours)} />
              <button type="submit">Save</button>
            </PostForm>
          </section>
        </ConsolePage>
      ));
    });

    app.post('/console/settings/screening', { config: { audit: 'accounts.screening_settings.changed' }, schema: { hide: true, body: ScreeningForm } }, async (request, reply) => {
      const { enabled_checks = [], _csrf, ...rest } = request.body;
      await writeScreeningSettings(deps, request.account, { ...rest, disabled_checks: OPTIONAL_CHECKS.filter((c) => !enabled_checks.includes(c)) });
      return seeOther(reply, '/console/settings?done=screening');
    });

    app.post(
      '/console/settings/alerts',
      { config: { audit: 'settings.alerts.changed' }, schema: { hide: true, body: Type.Object({ portal_alert_hours: Type.Integer({ minimum: 0, maximum: MAX_PORTAL_ALERT_HOURS }), ...CsrfField }) } },
      async (request, reply) => {
        await setPortalAlertHours(deps, request.account, request.body.portal_alert_hours);
        return seeOther(reply, '/console/settings?done=alerts');
      },
    );

    app.post('/console/settings/host-profile', { config: { audit: 'accounts.host_profile.changed' }, schema: { hide: true, body: ProfileForm } }, async (request, reply) => {
      await writeAccountProfile(deps, request.account.id, profileChange(request.body));
      return seeOther(reply, '/console/settings?done=profile#profile-h');
    });

    app.get('/console/settings/logo', { schema: { hide: true } }, async (request, reply) => sendLogo(reply, await accountProfile(deps.db, request.account.id)));

    app.post('/console/settings/portal', { config: { audit: 'accounts.settings.guest_portal_screens.changed' }, schema: { hide: true, body: ScreensForm } }, async (request, reply) => {
      const body = request.body as Record<string, string | undefined>;
      const screens = Object.fromEntries(SCREENS.flatMap((s) => (body[s] ? [[s, body[s] as ScreenSetting]] : [])));
      await writeScreenSettings(deps, request.account, DEFAULT_KEY, { config_data: [{ guest_portal_screens: screens }] });
      return seeOther(reply, '/console/settings?done=portal');
    });
  };
