// The consent banner's model (CONTRACT section 8) and the save request around it: every level strict (an unknown
// field is refused where it is), every string bounded plain text, colours #rrggbb, the privacy policy an https URL.
import * as v from 'valibot';
import { HttpsUrl, PlainText } from './plain-text.ts';

export const maxTitleLength = 120;
export const maxBodyLength = 2000;
export const maxLabelLength = 40;
export const maxCategoryDescriptionLength = 500;
export const maxCategories = 10;
export const categoryKeyPattern = /^[a-z][a-z0-9_]{0,31}$/;

/** An object that names the field it does not know (valibot puts the unknown key in the issue's path). */
function strict<const Entries extends v.ObjectEntries>(entries: Entries) {
  return v.strictObject(entries, (issue) => (issue.expected === 'never' ? 'is not a known field' : 'must be an object'));
}

const Colour = v.pipe(v.string('must be a string'), v.regex(/^#[0-9a-fA-F]{6}$/, 'must be a colour #rrggbb'));

const Category = strict({
  key: v.pipe(v.string('must be a string'), v.regex(categoryKeyPattern, 'must be 1-32 characters: a lower-case letter, then lower-case letters, digits or _')),
  label: PlainText(maxLabelLength),
  description: PlainText(maxCategoryDescriptionLength, { multiline: true }),
  required: v.boolean('must be true or false'),
});

export const BannerConfig = strict({
  title: PlainText(maxTitleLength),
  body: PlainText(maxBodyLength, { multiline: true }),
  accept_label: PlainText(maxLabelLength),
  reject_label: PlainText(maxLabelLength),
  settings_label: PlainText(maxLabelLength),
  categories: v.pipe(
    v.array(Category, 'must be an array'),
    v.maxLength(maxCategories, `must hold at most ${maxCategories} categories`),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const seen = new Map<string, number>();
      dataset.value.forEach((category, index) => {
        const first = seen.get(category.key);
        if (first === undefined) seen.set(category.key, index);
        else addIssue({ message: `repeats the key of category ${first}`, path: keyPathOf(dataset.value, index) });
      });
    }),
  ),
  position: v.picklist(['bottom', 'top', 'center'], 'must be bottom, top or center'),
  theme: strict({ background: Colour, text: Colour, accent: Colour }),
  privacy_policy_url: HttpsUrl,
});

/** The issue path of categories[index].key (under the array), for the duplicate-key refusal. */
function keyPathOf(categories: { key: string }[], index: number): [v.ArrayPathItem, v.ObjectPathItem] {
  const category = categories[index]!;
  return [
    { type: 'array', origin: 'value', input: categories, key: index, value: category },
    { type: 'object', origin: 'value', input: category, key: 'key', value: category.key },
  ];
}

export const SaveBannerBody = strict({
  config_version: v.pipe(v.number('must be a whole number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'), v.maxValue(2 ** 53 - 1, 'is too large')),
  idempotency_key: v.pipe(v.string('must be a string'), v.regex(/^[A-Za-z0-9._:-]{1,128}$/, 'must be 1-128 characters: letters, digits, . _ : or -')),
  request_reconsent: v.boolean('must be true or false'),
  config: BannerConfig,
});

export type BannerConfig = v.InferOutput<typeof BannerConfig>;
export type SaveBannerBody = v.InferOutput<typeof SaveBannerBody>;

/** What GET answers before the first save: a neutral banner to start from (config_version 0). */
export const defaultBannerConfig: BannerConfig = {
  title: 'We value your privacy',
  body: 'We use cookies and similar technologies to measure how this site is used. You can accept, reject or choose by category.',
  accept_label: 'Accept all',
  reject_label: 'Reject all',
  settings_label: 'Settings',
  categories: [
    { key: 'necessary', label: 'Necessary', description: 'Needed for the site to work. Always on.', required: true },
    { key: 'analytics', label: 'Analytics', description: 'Helps us understand how visitors use the site.', required: false },
  ],
  position: 'bottom',
  theme: { background: '#ffffff', text: '#1f2937', accent: '#2563eb' },
  privacy_policy_url: 'https://example.com/privacy',
};
