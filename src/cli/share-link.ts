// `sightline share-link create|list|revoke`: read-only links to one site's dashboard, through the same actions as
// /v1/sites/:siteId/share-links (src/ui/share-links.ts): the token is printed once, only its hash is kept.
import { defineCommand } from 'citty';
import { ApiError } from '../http/errors.ts';
import { CreateShareLinkBody, createShareLink, listShareLinks, maxShareLinksListed, revokeShareLink } from '../ui/share-links.ts';
import { commonArgs, output, parseFlags, requireSite, requireWorkspace, runCommandSafely, systemActor, table, withContext } from './common.ts';

const siteArgs = {
  workspace: { type: 'string', description: 'Workspace slug', required: true },
  site: { type: 'string', description: 'Site id', required: true },
} as const;

/** The dashboard address a share token opens, as the admin UI builds it (web/admin/share-panel.js). */
function shareUrl(origin: string, siteId: string, token: string): string {
  return `${origin}/?site=${encodeURIComponent(siteId)}#share=${token}`;
}

/** --origin: the server's public address, without a path (https://analytics.example.com). */
function parseOrigin(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  const bare = url && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if (!url || !bare || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw ApiError.invalidPayload([{ path: '/origin', message: 'must be an http(s) address without a path, such as https://analytics.example.com' }]);
  }
  return url.origin;
}

const create = defineCommand({
  meta: { name: 'create', description: "Create a read-only link to a site's dashboard (its token is printed once)" },
  args: {
    ...commonArgs,
    ...siteArgs,
    label: { type: 'string', description: 'What the link is for (1-128 characters)', required: true },
    origin: { type: 'string', description: "The server's public address, to print the whole link (https://analytics.example.com)" },
  },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const origin = args.origin === undefined ? undefined : parseOrigin(args.origin);
        const site = requireSite(context, requireWorkspace(context, args.workspace), args.site);
        const input = parseFlags(CreateShareLinkBody, { label: args.label });
        const link = createShareLink(context, systemActor, site, input);
        const url = shareUrl(origin ?? '<server address>', site.id, link.token);
        output(args, origin === undefined ? link : { ...link, url }, () =>
          [`Created share link ${link.id} (${link.label}) for site ${site.id}`, link.token, `Link: ${url}`, link.warning].join('\n'),
        );
      }),
    ),
});

const list = defineCommand({
  meta: { name: 'list', description: `List a site's share links, newest first (at most ${maxShareLinksListed}; never their tokens)` },
  args: { ...commonArgs, ...siteArgs },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const site = requireSite(context, requireWorkspace(context, args.workspace), args.site);
        const links = listShareLinks(context, site);
        output(args, { share_links: links }, () =>
          table([['ID', 'LABEL', 'CREATED', 'REVOKED'], ...links.map((link) => [link.id, link.label, link.created_at, link.revoked_at ?? '-'])]),
        );
      }),
    ),
});

const revoke = defineCommand({
  meta: { name: 'revoke', description: 'Revoke a share link: it stops working at once' },
  args: { ...commonArgs, ...siteArgs, id: { type: 'string', description: 'Share link id', required: true } },
  run: ({ args }) =>
    runCommandSafely(args, () =>
      withContext(args, (context) => {
        const site = requireSite(context, requireWorkspace(context, args.workspace), args.site);
        let link;
        try {
          link = revokeShareLink(context, systemActor, site, args.id);
        } catch (error) {
          if (error instanceof ApiError && error.code === 'not_found') throw ApiError.notFound(`No live share link ${args.id} on site ${site.id} (unknown, or already revoked)`);
          throw error;
        }
        output(args, link, () => `Revoked share link ${link.id} at ${link.revoked_at}`);
      }),
    ),
});

export const shareLinkCommand = defineCommand({
  meta: { name: 'share-link', description: "Manage read-only links to a site's dashboard" },
  subCommands: { create, list, revoke },
});
