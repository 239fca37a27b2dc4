// Lints the built JavaScript in n8n/dist with the community-node rules that n8n applies to
// published packages (restricted globals such as setTimeout/process, restricted imports),
// which `n8n-node lint` does not see because it only lints the TypeScript sources.
// Usage: node scan-dist.mjs [directory]   (default: n8n/dist)
// Prints ESLint's JSON results; exit code 0 even when problems are found (the test decides).
import plugin from '@n8n/eslint-plugin-community-nodes';
import { ESLint } from 'eslint';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.resolve(
	process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../n8n/dist'),
);
const eslint = new ESLint({
	cwd: dir,
	overrideConfigFile: true,
	overrideConfig: [
		{
			files: ['**/*.js'],
			languageOptions: { sourceType: 'commonjs', ecmaVersion: 2022 },
			plugins: { '@n8n/community-nodes': plugin },
			rules: {
				'@n8n/community-nodes/no-restricted-globals': 'error',
				'@n8n/community-nodes/no-restricted-imports': 'error',
			},
		},
	],
});
const results = await eslint.lintFiles(['**/*.js']);
process.stdout.write(
	JSON.stringify(
		results.map((r) => ({
			file: path.relative(dir, r.filePath),
			messages: r.messages.map((m) => `${m.line}:${m.column} ${m.ruleId}: ${m.message}`),
		})),
	),
);
