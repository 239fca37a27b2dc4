// The publisher's identity lives in one file, publisher.json at the repository root. The
// builds stamp it into the n8n package, the Zapier app and the SDK (package.json fields,
// documentation links); `npm run release:check` (release/check.js) refuses placeholders.
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const FILE = path.join(ROOT, 'publisher.json');
const FIELDS = ['name', 'description', 'author', 'supportEmail', 'homepage', 'repository', 'docsUrl'];
const URL_FIELDS = ['homepage', 'repository', 'docsUrl'];

/** publisher.json, or the file named by CERTSVC_PUBLISHER (tests, a fork's own identity). */
const PUBLISHER_FILE = () => path.resolve(process.env.CERTSVC_PUBLISHER || FILE);

function readPublisher(file = PUBLISHER_FILE()) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// Reserved names (RFC 2606/6761) and the fill-me-in words people leave behind.
const PLACEHOLDER_HOST = /(^|\.)(example\.(com|org|net)|example|test|invalid|localhost)$/i;
const PLACEHOLDER_TEXT = /\b(todo|tbd|changeme|lorem)\b|your[-_ ]|<[^>]*>|xxx/i;

/** Each field's problem, as `"field" ...`; empty when the identity can be published. */
function publisherProblems(publisher) {
  const problems = [];
  for (const field of FIELDS) {
    const value = publisher[field];
    if (typeof value !== 'string' || !value.trim()) {
      problems.push(`"${field}" is missing`);
      continue;
    }
    if (PLACEHOLDER_TEXT.test(value)) problems.push(`"${field}" is a placeholder (${value})`);
    else if (URL_FIELDS.includes(field)) {
      let url;
      try {
        url = new URL(value);
      } catch {
        problems.push(`"${field}" is not a URL (${value})`);
        continue;
      }
      if (url.protocol !== 'https:') problems.push(`"${field}" must use https:// (${value})`);
      else if (PLACEHOLDER_HOST.test(url.hostname)) problems.push(`"${field}" is a placeholder (${value})`);
      else if (value.endsWith('/')) problems.push(`"${field}" must not end with "/" (${value})`);
    } else if (field === 'supportEmail') {
      const domain = /^[^\s@]+@([^\s@]+\.[^\s@]+)$/.exec(value)?.[1];
      if (!domain) problems.push(`"${field}" is not an email address (${value})`);
      else if (PLACEHOLDER_HOST.test(domain)) problems.push(`"${field}" is a placeholder (${value})`);
    }
  }
  return problems;
}

/** A documentation link of one package, e.g. docsLink(p, 'n8n', 'credentials'). */
function docsLink(publisher, dir, anchor) {
  return `${publisher.docsUrl}/${dir}#${anchor}`;
}

/** The n8n codex files (dist-relative) and the README section each links to as its primary docs. */
const N8N_CODEX_DOCS = {
  'nodes/CertificateService/CertificateService.node.json': 'readme',
  'nodes/CertificateServiceTrigger/CertificateServiceTrigger.node.json': 'trigger',
  'nodes/CertificateServicePollTrigger/CertificateServicePollTrigger.node.json': 'poll-trigger',
};

/** A codex file's `resources`: the credential's and the node's documentation links. */
function codexResources(publisher, anchor) {
  return {
    credentialDocumentation: [{ url: docsLink(publisher, 'n8n', 'credentials') }],
    primaryDocumentation: [{ url: docsLink(publisher, 'n8n', anchor) }],
  };
}

/** The package.json fields that carry the identity, for the package in folder `dir`. */
function packageFields(publisher, dir) {
  return {
    homepage: docsLink(publisher, dir, 'readme'),
    author: { name: publisher.author, email: publisher.supportEmail },
    repository: { type: 'git', url: `git+${publisher.repository}.git`, directory: dir },
    bugs: { url: `${publisher.repository}/issues`, email: publisher.supportEmail },
  };
}

/**
 * Replaces `file` in one step (written aside, then renamed over it): other processes read these
 * files while a pack runs (Node reads the nearest package.json to resolve a module), and must see
 * the old text or the new one, never a half-written file.
 */
function replaceFile(file, text) {
  const aside = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(aside, text);
  fs.renameSync(aside, file);
}

/** Writes those fields into `<dir>/package.json` (other keys and their order kept); true if it changed. */
function stampPackageJson(dir, publisher = readPublisher(), root = ROOT) {
  const file = path.join(root, dir, 'package.json');
  const before = fs.readFileSync(file, 'utf8');
  const pkg = JSON.parse(before);
  Object.assign(pkg, packageFields(publisher, dir));
  const after = `${JSON.stringify(pkg, null, 2)}\n`;
  if (after === before) return false;
  replaceFile(file, after);
  return true;
}

/** The packages npm publishes; each stamps its package.json at pack time (prepack) and restores it after (postpack). */
const NPM_PACKAGES = ['n8n', 'shared/sdk', 'shared/cli', 'shared/sandbox', 'shared/mcp'];
const BACKUPS = { 'package.json': '.package.json.prepack', 'README.md': '.README.md.prepack' };
const LOCK = '.prepack.lock';

/**
 * A README's relative links made absolute, into the publisher's repository: on the registry's
 * page a link such as `../cli#readme` or `docs/shot.png` has no folder to resolve against.
 * Folders link to `tree/main`, files to `blob/main`, images to `raw/main`.
 */
function absoluteLinks(markdown, publisher, dir, root = ROOT) {
  return markdown.replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang, text, target) => {
    if (/^([a-z]+:|#)/i.test(target)) return whole;
    const [file, anchor] = target.split('#');
    const repoPath = path.posix.normalize(path.posix.join(dir, file));
    const isFolder = fs.existsSync(path.join(root, repoPath)) && fs.statSync(path.join(root, repoPath)).isDirectory();
    const kind = bang ? 'raw' : isFolder ? 'tree' : 'blob';
    return `${bang}[${text}](${publisher.repository}/${kind}/main/${repoPath}${anchor === undefined ? '' : `#${anchor}`})`;
  });
}

/**
 * The files in a package's dist/ that no source in its src/ builds. `tsc -b` only writes and
 * replaces outputs, so a source renamed or removed leaves its old output behind, and the pack
 * would ship it.
 */
function staleOutputs(dir) {
  const src = path.join(dir, 'src');
  const dist = path.join(dir, 'dist');
  if (!fs.existsSync(src) || !fs.existsSync(dist)) return [];
  return fs
    .readdirSync(dist, { recursive: true })
    .filter((file) => /(\.d\.ts|\.js)$/.test(file) && !fs.existsSync(path.join(src, file.replace(/(\.d\.ts|\.js)$/, '.ts'))))
    .map((file) => `dist/${file}`);
}

/**
 * `prepack`: keep package.json and README.md as committed, then stamp the identity into the
 * one and make the other's links absolute, so the tarball carries both. `postpack`: put the
 * committed files back. The tree is the same after a pack, and a build never touches a
 * tracked file.
 *
 * npm runs `postpack` only when the pack succeeded: a pack that fails after `prepack` (a
 * `--pack-destination` that does not exist) would leave the stamped files behind, and the next
 * pack would back them up as if committed. So a pack holds a lock naming its npm process, and
 * a detached watcher puts the committed files back as soon as that process has ended without
 * `postpack`; a pack that finds the lock of a process that is gone does the same first, and one
 * that finds a live pack's lock waits for it (two packs of one package at once).
 */
function prepack(dir, publisher = readPublisher(), root = ROOT, npm = packingProcess()) {
  const stale = staleOutputs(path.join(root, dir));
  if (stale.length) throw new Error(`release/publisher.js: ${dir}/dist holds ${stale.join(', ')}, which no file in src/ builds (a source renamed or removed since): rm -rf ${dir}/dist && npm run build`);
  const owner = npm ?? process.ppid;
  const lock = path.join(root, dir, LOCK);
  const deadline = Date.now() + 5 * 60_000;
  for (;;) {
    try {
      fs.writeFileSync(lock, String(owner), { flag: 'wx' });
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    const holder = readLock(lock);
    if (holder === undefined) continue; // released meanwhile
    if (!isRunning(Number(holder))) restoreIfOwned(dir, holder, root); // a pack that ended without postpack
    else if (Date.now() > deadline) throw new Error(`release/publisher.js: ${dir} is still being packed by process ${holder}`);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
  }
  for (const [file, backup] of Object.entries(BACKUPS)) fs.copyFileSync(path.join(root, dir, file), path.join(root, dir, backup));
  stampPackageJson(dir, publisher, root);
  const readme = path.join(root, dir, 'README.md');
  replaceFile(readme, absoluteLinks(fs.readFileSync(readme, 'utf8'), publisher, dir, root));
  if (npm !== undefined && npm !== process.pid) {
    spawn(process.execPath, [__filename, 'restore-after', dir, String(owner), root], { detached: true, stdio: 'ignore' }).unref();
  }
}
function postpack(dir, root = ROOT) {
  for (const [file, backup] of Object.entries(BACKUPS)) {
    if (fs.existsSync(path.join(root, dir, backup))) fs.renameSync(path.join(root, dir, backup), path.join(root, dir, file));
  }
  fs.rmSync(path.join(root, dir, LOCK), { force: true });
}

/** The committed files back and the lock gone, if the lock is still `owner`'s (postpack may have run meanwhile). */
function restoreIfOwned(dir, owner, root = ROOT) {
  if (readLock(path.join(root, dir, LOCK)) === String(owner)) postpack(dir, root);
}

function readLock(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** The watcher: waits for the npm process that packs `dir` to end, then puts back what postpack did not. */
function restoreAfter(dir, owner, root) {
  const timer = setInterval(() => {
    if (isRunning(owner)) return;
    clearInterval(timer);
    restoreIfOwned(dir, owner, root);
  }, 100);
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * The npm process running this script: the nearest ancestor that is not a shell (npm runs
 * scripts through `sh -c`). Read from /proc on Linux, else from `ps`; undefined when neither
 * answers, and then no watcher is started (it could not tell when npm ends).
 */
function packingProcess() {
  let pid = process.ppid;
  for (let hop = 0; hop < 3; hop++) {
    const parent = parentOf(pid);
    if (!parent) return undefined;
    if (!/^-?(sh|bash|dash|zsh)$/.test(parent.comm)) return pid;
    pid = parent.ppid;
  }
  return pid;
}
function parentOf(pid) {
  try {
    // "pid (comm) state ppid …": comm may hold spaces, so split after the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ppid: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) };
  } catch {
    const [ppid, comm] = (spawnSync('ps', ['-o', 'ppid=,comm=', '-p', String(pid)], { encoding: 'utf8' }).stdout ?? '').trim().split(/\s+/);
    return comm ? { comm: path.basename(comm), ppid: Number(ppid) } : undefined;
  }
}

module.exports = { ROOT, FIELDS, NPM_PACKAGES, PUBLISHER_FILE, N8N_CODEX_DOCS, readPublisher, publisherProblems, docsLink, codexResources, packageFields, stampPackageJson, absoluteLinks, staleOutputs, prepack, postpack, LOCK };

// `node <root>/release/publisher.js prepack|postpack`, run by npm in a package's folder, and
// `restore-after <dir> <pid> <root>`, the watcher prepack starts.
if (require.main === module && process.argv[2] === 'restore-after') {
  const [dir, owner, root] = process.argv.slice(3);
  restoreAfter(dir, Number(owner), root);
} else if (require.main === module) {
  const [step] = process.argv.slice(2);
  const dir = path.relative(ROOT, process.cwd()).split(path.sep).join('/');
  if (!NPM_PACKAGES.includes(dir)) throw new Error(`release/publisher.js: run it from one of ${NPM_PACKAGES.join(', ')} (npm does, at pack time), not ${dir || '.'}`);
  if (step === 'prepack') prepack(dir);
  else if (step === 'postpack') postpack(dir);
  else throw new Error('usage: node release/publisher.js prepack|postpack');
}
