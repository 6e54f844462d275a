import { CAMPAIGN_UNKNOWN } from '../../shared/schemas/event.js';
import type { ReferralLookup } from '../../shared/schemas/sdk.js';
import { ValidationError } from '../errors.js';
import { findReferralInCampaign } from '../repositories/referrals.js';
import type { ServiceDeps } from './deps.js';
import { loadTrackerScript, type TrackerScript } from './trackerScript.js';

export interface SdkService {
  /** The browser tracking script, read and compressed once (on first use). */
  trackerScript(): TrackerScript;
  /** `GET /v1/sdk/referrals/{code}?campaign=`: whether the script may store this code. */
  lookUpReferral(code: string, publicId: string): Promise<ReferralLookup>;
}

/** What a referral code can look like (spec §10.3); anything else is no code at all. */
const REFERRAL_CODE = /^[A-Za-z0-9]{2,32}$/;

/** What the key-less browser routes need besides `POST /v1/sdk/events` (see EventService). */
export function sdkService({ db }: ServiceDeps): SdkService {
  let script: TrackerScript | undefined;
  return {
    trackerScript() {
      script ??= loadTrackerScript();
      return script;
    },

    /**
     * Asked by the tracking script before it stores a code: only an active affiliate's code is
     * kept in the visitor's cookie, for the campaign's `cookieDays`. Unknown and inactive codes
     * get the same answer, so the key-less route says no more about an affiliate than "this
     * link does not count".
     */
    async lookUpReferral(code, publicId) {
      const key = REFERRAL_CODE.test(code) ? code.toUpperCase() : '';
      const found = await findReferralInCampaign(db, publicId, key);
      if (!found) throw new ValidationError([`campaign ${CAMPAIGN_UNKNOWN}`]);
      const active = found.status === 'active' && found.referralId !== null;
      return { referralId: active ? found.referralId : null, active, cookieDays: found.cookieDays };
    },
  };
}
