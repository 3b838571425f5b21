// A local OpenID Connect provider for klens development and end-to-end tests.
//
// Started by dev/stack; wraps the OpenID Certified `oidc-provider` package. Everything is in memory
// and made anew at each start (signing key, sessions, codes, tokens).
//
//   issuer     http://127.0.0.1:19000   (OIDC_PORT, OIDC_ISSUER)
//   client     klens / klens-secret, client_secret_basic or client_secret_post, PKCE (S256) optional;
//              redirect URI: any http://127.0.0.1:<port>/auth/callback or
//              http://localhost:<port>/auth/callback
//   users      users.json (OIDC_USERS): password, name, email, groups
//   ID token   RS256, carries sub, name, preferred_username, email, email_verified, groups;
//              lifetime OIDC_ID_TOKEN_TTL seconds (default 3600)
//   login      GET /interaction/<uid> shows a form: "Username" (name=username),
//              "Password" (name=password), button "Sign in"; it posts to /interaction/<uid>/login.
//              Consent is granted automatically.
//   logout     GET /session/end (end_session_endpoint) signs out at once, no confirmation page.

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import Provider from 'oidc-provider';

const here = dirname(fileURLToPath(import.meta.url));
const HOST = process.env.OIDC_HOST || '127.0.0.1';
const PORT = Number(process.env.OIDC_PORT || 19000);
const ISSUER = process.env.OIDC_ISSUER || `http://127.0.0.1:${PORT}`;
const USERS_FILE = process.env.OIDC_USERS || resolve(here, 'users.json');
const ID_TOKEN_TTL = Number(process.env.OIDC_ID_TOKEN_TTL || 3600);
const CLIENT_ID = process.env.OIDC_CLIENT_ID || 'klens';
const CLIENT_SECRET = process.env.OIDC_CLIENT_SECRET || 'klens-secret';

if (!Number.isInteger(ID_TOKEN_TTL) || ID_TOKEN_TTL <= 0) {
  console.error(`OIDC_ID_TOKEN_TTL must be a positive number of seconds, got ${process.env.OIDC_ID_TOKEN_TTL}`);
  process.exit(2);
}

const users = JSON.parse(readFileSync(USERS_FILE, 'utf8'));

// Loopback redirect URIs on any port (RFC 8252 section 7.3), for both host spellings.
const CALLBACK = /^http:\/\/(127\.0\.0\.1|localhost):\d{1,5}\/auth\/callback$/;
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost)(:\d{1,5})?(\/[^\s]*)?$/;

// A fresh RS256 signing key at each start.
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = {
  ...privateKey.export({ format: 'jwk' }),
  kid: `klens-dev-${randomBytes(4).toString('hex')}`,
  alg: 'RS256',
  use: 'sig',
};

function esc(value) {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

// Plain pages without any outside resource (no web fonts, no CDN).
function page(title, body) {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; background: #f4f5f7; margin: 0; }
  main { max-width: 22rem; margin: 4rem auto; background: #fff; padding: 1.5rem 2rem 2rem;
         border-radius: 6px; box-shadow: 0 1px 3px rgba(0,0,0,.2); }
  h1 { font-size: 1.3rem; font-weight: 600; }
  label { display: block; margin-top: 1rem; font-size: .9rem; }
  input { display: block; width: 100%; box-sizing: border-box; padding: .5rem; margin-top: .25rem;
          font-size: 1rem; }
  button { margin-top: 1.5rem; width: 100%; padding: .6rem; font-size: 1rem; cursor: pointer; }
  .error { color: #b00020; }
  pre { white-space: pre-wrap; word-wrap: break-word; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>`;
}

function loginPage(uid, { username = '', error = '', clientId = '' } = {}) {
  return page('Sign in', `<h1>Sign in to klens dev</h1>
<p>Client: <code>${esc(clientId)}</code></p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/interaction/${esc(uid)}/login" autocomplete="off">
  <label for="username">Username</label>
  <input id="username" name="username" type="text" value="${esc(username)}" autofocus required>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" required>
  <button type="submit">Sign in</button>
</form>`);
}

async function readForm(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 64 * 1024) {
      throw new Error('request body too large');
    }
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function account(accountId) {
  const user = users[accountId];
  if (!user) {
    return undefined;
  }
  return {
    accountId,
    async claims() {
      return {
        sub: accountId,
        preferred_username: accountId,
        name: user.name || accountId,
        email: user.email || `${accountId}@example.com`,
        email_verified: true,
        groups: Array.isArray(user.groups) ? user.groups : [],
      };
    },
  };
}

const configuration = {
  clients: [
    {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      client_name: 'klens',
      // Registered examples; any loopback port is accepted (see redirectUriAllowed below).
      redirect_uris: [
        'http://127.0.0.1:8080/auth/callback',
        'http://localhost:8080/auth/callback',
      ],
      post_logout_redirect_uris: [
        'http://127.0.0.1:8080/',
        'http://localhost:8080/',
      ],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      // The token endpoint accepts the secret as HTTP Basic or in the form body alike.
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
  ],
  jwks: { keys: [signingKey] },
  cookies: { keys: [randomBytes(32).toString('hex')] },
  claims: {
    openid: ['sub', 'groups'],
    profile: ['name', 'preferred_username'],
    email: ['email', 'email_verified'],
    groups: ['groups'],
  },
  // Put the scope claims in the ID token itself, not only behind the userinfo endpoint.
  conformIdTokenClaims: false,
  findAccount: async (_ctx, sub) => account(sub),
  features: {
    devInteractions: { enabled: false },
    rpInitiatedLogout: {
      enabled: true,
      // Sign out at once: the confirmation form is submitted by the page itself.
      logoutSource: async (ctx, form) => {
        ctx.body = page('Signing out', `<h1>Signing out</h1>
${form}
<button id="signout" type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<script>document.getElementById('signout').click();</script>`);
      },
      postLogoutSuccessSource: async (ctx) => {
        ctx.body = page('Signed out', '<h1>Signed out</h1><p>You have been signed out.</p>');
      },
    },
  },
  pkce: {
    // PKCE (S256) is accepted from the confidential client but not demanded.
    required: () => false,
  },
  ttl: {
    IdToken: ID_TOKEN_TTL,
    AccessToken: ID_TOKEN_TTL,
    AuthorizationCode: 120,
    Interaction: 600,
    Session: 24 * 3600,
    Grant: 24 * 3600,
  },
  interactions: {
    url: async (_ctx, interaction) => `/interaction/${interaction.uid}`,
  },
  // Consent is implied for the project's own client: every requested OIDC scope and claim is
  // granted without a consent screen.
  loadExistingGrant: async (ctx) => {
    const { provider, client, session } = ctx.oidc;
    const grantId = ctx.oidc.result?.consent?.grantId || session.grantIdFor(client.clientId);
    let grant = grantId ? await provider.Grant.find(grantId) : undefined;
    if (!grant) {
      grant = new provider.Grant({ clientId: client.clientId, accountId: session.accountId });
    }
    const scopes = [...(ctx.oidc.requestParamScopes || [])].join(' ');
    if (scopes) {
      grant.addOIDCScope(scopes);
    }
    const claims = [...(ctx.oidc.requestParamClaims || [])];
    if (claims.length) {
      grant.addOIDCClaims(claims);
    }
    await grant.save();
    return grant;
  },
  renderError: async (ctx, out) => {
    ctx.type = 'html';
    ctx.body = page('Error', `<h1>Something went wrong</h1>
${Object.entries(out).map(([k, v]) => `<pre><strong>${esc(k)}</strong>: ${esc(v)}</pre>`).join('\n')}`);
  },
};

const provider = new Provider(ISSUER, configuration);

// Loopback redirect URIs with any port, on both 127.0.0.1 and localhost.
const { redirectUriAllowed, postLogoutRedirectUriAllowed } = provider.Client.prototype;
provider.Client.prototype.redirectUriAllowed = function allowLoopback(value) {
  return (this.clientId === CLIENT_ID && CALLBACK.test(String(value)))
    || redirectUriAllowed.call(this, value);
};
provider.Client.prototype.postLogoutRedirectUriAllowed = function allowLoopback(value) {
  return (this.clientId === CLIENT_ID && LOOPBACK.test(String(value)))
    || postLogoutRedirectUriAllowed.call(this, value);
};

// The interaction (login) pages.
provider.use(async (ctx, next) => {
  const match = /^\/interaction\/([A-Za-z0-9_-]+)(\/login)?$/.exec(ctx.path);
  if (!match) {
    return next();
  }
  const [, uid, login] = match;
  ctx.set('cache-control', 'no-store');

  if (!login && ctx.method === 'GET') {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    if (details.uid !== uid) {
      ctx.status = 400;
      ctx.body = page('Error', '<h1>Unknown sign-in request</h1>');
      return undefined;
    }
    if (details.prompt.name === 'login') {
      ctx.type = 'html';
      ctx.body = loginPage(uid, { clientId: details.params.client_id });
      return undefined;
    }
    // Any other prompt (consent): grant what was asked and carry on.
    const grant = details.grantId
      ? await provider.Grant.find(details.grantId)
      : new provider.Grant({ accountId: details.session.accountId, clientId: details.params.client_id });
    const { missingOIDCScope, missingOIDCClaims } = details.prompt.details;
    if (missingOIDCScope) grant.addOIDCScope(missingOIDCScope.join(' '));
    if (missingOIDCClaims) grant.addOIDCClaims(missingOIDCClaims);
    const grantId = await grant.save();
    const url = await provider.interactionResult(ctx.req, ctx.res, { consent: { grantId } }, { mergeWithLastSubmission: true });
    ctx.status = 303;
    ctx.redirect(url);
    return undefined;
  }

  if (login && ctx.method === 'POST') {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    const form = await readForm(ctx.req);
    const username = (form.get('username') || '').trim();
    const password = form.get('password') || '';
    const user = users[username];
    if (details.uid !== uid || details.prompt.name !== 'login') {
      ctx.status = 400;
      ctx.body = page('Error', '<h1>Unknown sign-in request</h1>');
      return undefined;
    }
    if (!user || user.password !== password) {
      console.log(`login failed for ${JSON.stringify(username)}`);
      ctx.status = 401;
      ctx.type = 'html';
      ctx.body = loginPage(uid, { username, error: 'Invalid username or password.', clientId: details.params.client_id });
      return undefined;
    }
    console.log(`login ${username}`);
    const url = await provider.interactionResult(ctx.req, ctx.res, {
      login: { accountId: username, remember: false },
    }, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(url);
    return undefined;
  }

  ctx.status = 405;
  ctx.body = page('Error', '<h1>Method not allowed</h1>');
  return undefined;
});

provider.on('server_error', (_ctx, err) => console.error('server_error', err));

provider.listen(PORT, HOST, () => {
  console.log(`oidc provider ${ISSUER} listening on http://${HOST}:${PORT} (id token ttl ${ID_TOKEN_TTL}s, ${Object.keys(users).length} users)`);
});
