import { expect } from 'chai';
import {
  createAffiliateSchema,
  listAffiliatesQuerySchema,
  updateAffiliateSchema,
} from '../../shared/schemas/affiliate.js';
import { parseWith } from '../../shared/schemas/validation.js';

const messages = (result: ReturnType<typeof parseWith>) => (result.ok ? [] : result.messages);

describe('affiliate schemas', () => {
  it('words the spec’s validation messages exactly, all failures at once', () => {
    const result = parseWith(createAffiliateSchema, { email: 'nope', password: '12345', id: 7 });
    expect(messages(result)).to.deep.equal([
      'email must be a valid email',
      'password must be at least 6 characters long',
      'property id should not exist',
    ]);
  });

  it('counts the password in UTF-8 bytes: 72 is the most bcrypt reads', () => {
    expect(parseWith(createAffiliateSchema, { email: 'a@b.co', password: 'é'.repeat(36) }).ok).to.equal(true);
    expect(messages(parseWith(createAffiliateSchema, { email: 'a@b.co', password: 'é'.repeat(37) }))).to.deep.equal([
      'password must be at most 72 bytes long (UTF-8)',
    ]);
  });

  it('names missing and mistyped fields', () => {
    expect(messages(parseWith(createAffiliateSchema, {}))).to.deep.equal(['email is required', 'password is required']);
    expect(messages(parseWith(createAffiliateSchema, undefined))).to.deep.equal(['body is required']);
    expect(messages(parseWith(updateAffiliateSchema, { name: 5, status: 'gone' }))).to.deep.equal([
      'name must be a string',
      'status must be one of the following values: pending, active, inactive',
    ]);
  });

  it('accepts referral codes of letters and digits only, 2 to 32 long', () => {
    expect(parseWith(createAffiliateSchema, { email: 'a@b.co', password: 'secret', referralId: 'ab12' }).ok).to.equal(
      true,
    );
    expect(
      messages(parseWith(createAffiliateSchema, { email: 'a@b.co', password: 'secret', referralId: 'ab-12' })),
    ).to.deep.equal(['referralId must contain only letters and digits (A-Z, 0-9)']);
    expect(
      messages(parseWith(createAffiliateSchema, { email: 'a@b.co', password: 'secret', referralId: 'A' })),
    ).to.deep.equal(['referralId must be at least 2 characters long']);
  });

  it('checks list parameters: limit 1 to 100, integers, known statuses', () => {
    const parsed = parseWith(listAffiliatesQuerySchema, {});
    expect(parsed.ok && parsed.data).to.deep.equal({ page: 1, limit: 50 });
    expect(messages(parseWith(listAffiliatesQuerySchema, { limit: '101' }))).to.deep.equal([
      'limit must not be greater than 100',
    ]);
    expect(messages(parseWith(listAffiliatesQuerySchema, { limit: '0', page: '1.5', status: 'x' }))).to.deep.equal([
      'status must be one of the following values: pending, active, inactive',
      'page must be an integer number',
      'limit must not be less than 1',
    ]);
  });
});
