// `npm run release:check`: can these packages go out under the publisher's name? Fails
// (exit 1, one line per problem) while publisher.json holds a placeholder such as
// example.com, or while a built package does not carry its identity. Run it before a
// release (n8n tag, Zapier push, SDK publish); it is not part of `npm test`, because the
// repository's own publisher.json stays a placeholder until the publisher fills it in.
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, NPM_PACKAGES, N8N_CODEX_DOCS, readPublisher, publisherProblems, docsLink, codexResources } = require('./publisher');

const read = (root, rel) => {
  const file = path.join(root, rel);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
};

/** `pick(require(file))`, or undefined when the file is missing or does not load. */
function loaded(root, rel, pick) {
  try {
    return pick(require(path.join(root, rel)));
  } catch {
    return undefined;
  }
}

/** Where a package would go out without the identity: npm packages stamp it at pack time, the builds into dist/. */
function stampProblems(publisher, root = ROOT) {
  const problems = [];
  for (const dir of NPM_PACKAGES) {
    const scripts = JSON.parse(read(root, `${dir}/package.json`)).scripts ?? {};
    for (const step of ['prepack', 'postpack']) {
      if (!/release\/publisher\.js (prepack|postpack)$/.test(scripts[step] ?? '') || !scripts[step].endsWith(step)) problems.push(`${dir}/package.json: no "${step}" script stamping publisher.json`);
    }
  }
  // The built code is loaded, as n8n and Zapier load it, and asked for its links.
  const n8nCredential = loaded(root, 'n8n/dist/credentials/CertificateServiceApi.credentials.js', (m) => new m.CertificateServiceApi().documentationUrl);
  if (n8nCredential !== docsLink(publisher, 'n8n', 'credentials')) {
    problems.push('n8n/dist/credentials/CertificateServiceApi.credentials.js: documentationUrl is not stamped');
  }
  for (const [codex, anchor] of Object.entries(N8N_CODEX_DOCS)) {
    const resources = JSON.parse(read(root, `n8n/dist/${codex}`) ?? '{}').resources;
    if (JSON.stringify(resources) !== JSON.stringify(codexResources(publisher, anchor))) {
      problems.push(`n8n/dist/${codex}: documentation links are not stamped`);
    }
  }
  const zapierAuth = loaded(root, 'zapier/index.js', (app) => app.authentication.fields.map((f) => f.helpText).join(' '));
  if (!zapierAuth?.includes(`(${docsLink(publisher, 'zapier', 'authentication')})`)) {
    problems.push('zapier/dist/index.js: the authentication help link is not stamped');
  }
  return problems;
}

module.exports = { stampProblems };

if (require.main === module) {
  const publisher = readPublisher();
  const problems = [...publisherProblems(publisher).map((p) => `publisher.json: ${p}`), ...stampProblems(publisher)];
  for (const problem of problems) console.log(problem);
  if (problems.length) {
    console.log(`release:check: ${problems.length} problem(s); fill in publisher.json, then npm run build`);
    process.exitCode = 1;
  } else console.log('release:check: publisher.json is complete and every package carries it');
}
