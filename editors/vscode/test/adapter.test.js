// The debug adapters driven by VS Code's own adapter test harness
// (@vscode/debugadapter-testsupport's DebugClient), as the editor drives
// them. Run by scripts/dap-vscode.sh, which builds the tools and the
// programs and passes them in the environment:
//   LANAI_EMU, NETVM   the lanai-emu and netvm commands
//   REC_S_ELF          fixtures/c/s/recursion.O1.s with the runtime (lanai-as's line table)
//   REC_G_ELF          fixtures/c/g/recursion.O1.s (clang -g: DWARF, C lines)
//   REPO               the repository's root
'use strict';
const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const env = (k) => {
	if (!process.env[k]) throw new Error(`${k} is not set (run scripts/dap-vscode.sh)`);
	return process.env[k];
};
const REPO = env('REPO');
const recS = path.join(REPO, 'fixtures/c/s/recursion.O1.s');
const recC = path.join(REPO, 'fixtures/c/recursion.c');

// The first instruction line of a label in an assembly file.
function firstInstruction(file, label) {
	const lines = fs.readFileSync(file, 'utf8').split('\n');
	let i = lines.findIndex((l) => l.startsWith(label + ':'));
	assert.ok(i >= 0, `no ${label} in ${file}`);
	for (i++; i < lines.length; i++) {
		const t = lines[i].replace(/!.*/, '').trim();
		if (t && !t.startsWith('.') && !t.endsWith(':')) return i + 1;
	}
	throw new Error(`no instruction after ${label}`);
}

// The line of a statement in a C file.
function lineOf(file, text) {
	const i = fs.readFileSync(file, 'utf8').split('\n').findIndex((l) => l.trim() === text);
	assert.ok(i >= 0, `no "${text}" in ${file}`);
	return i + 1;
}

// main's return value on the host (fixtures/c/expected.txt).
function expected(name) {
	for (const l of fs.readFileSync(path.join(REPO, 'fixtures/c/expected.txt'), 'utf8').split('\n')) {
		const [n, v] = l.split(/\s+/);
		if (n === name) return Number(v) | 0;
	}
	throw new Error(`no ${name} in expected.txt`);
}

async function client(cmd, type) {
	const dc = new DebugClient(cmd, 'dap', type);
	dc.defaultTimeout = 60000;
	await dc.start();
	return dc;
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

test('a breakpoint in a .s file: stack, registers, a watchpoint, a step back, the exit code', async () => {
	const dc = await client(env('LANAI_EMU'), 'lanai');
	try {
		const line = firstInstruction(recS, 'hanoi');
		await dc.hitBreakpoint({ program: env('REC_S_ELF') }, { path: recS, line });
		const st = await dc.stackTraceRequest({ threadId: 1 });
		const names = st.body.stackFrames.map((f) => f.name);
		assert.strictEqual(names[0], 'hanoi');
		assert.strictEqual(names[1], 'main');
		assert.strictEqual(names[names.length - 1], '_start');
		const top = st.body.stackFrames[0];
		assert.strictEqual(top.source.path, recS);
		assert.strictEqual(top.line, line);

		const scopes = await dc.scopesRequest({ frameId: top.id });
		const regs = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
		const reg = Object.fromEntries(regs.body.variables.map((v) => [v.name, v.value]));
		assert.strictEqual(reg.pc, top.instructionPointerReference);
		assert.strictEqual(reg.r0, '0x00000000');
		assert.strictEqual(reg.r1, '0xffffffff');

		const info = await dc.dataBreakpointInfoRequest({ name: 'moves' });
		const set = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId }] });
		assert.ok(set.body.breakpoints[0].verified);
		await dc.setBreakpointsRequest({ source: { path: recS }, breakpoints: [] });
		const stopped = dc.waitForEvent('stopped');
		await dc.continueRequest({ threadId: 1 });
		const ev = await stopped;
		assert.strictEqual(ev.body.reason, 'data breakpoint');
		assert.match(ev.body.description, /at cycle \d+/);
		const mem = await dc.customRequest('readMemory', { memoryReference: info.body.dataId.split(':')[1], count: 4 });
		assert.deepStrictEqual([...Buffer.from(mem.body.data, 'base64')], [0, 0, 0, 1]);

		// One instruction back: before the store, moves is 0 again.
		const back = dc.waitForEvent('stopped');
		await dc.stepBackRequest({ threadId: 1 });
		assert.strictEqual((await back).body.reason, 'step');
		const mem0 = await dc.customRequest('readMemory', { memoryReference: info.body.dataId.split(':')[1], count: 4 });
		assert.deepStrictEqual([...Buffer.from(mem0.body.data, 'base64')], [0, 0, 0, 0]);

		await dc.setDataBreakpointsRequest({ breakpoints: [] });
		const exited = dc.waitForEvent('exited');
		await dc.continueRequest({ threadId: 1 });
		assert.strictEqual((await exited).body.exitCode | 0, expected('recursion'));
	} finally {
		await dc.stop();
	}
});

test('a breakpoint in a .c file (clang -g): the C line and the C stack', async () => {
	const dc = await client(env('LANAI_EMU'), 'lanai');
	try {
		const line = lineOf(recC, 'moves++;');
		await dc.hitBreakpoint({ program: env('REC_G_ELF'), sourceDirs: [path.dirname(recC)] }, { path: recC, line });
		const st = await dc.stackTraceRequest({ threadId: 1 });
		const f = st.body.stackFrames;
		assert.strictEqual(f[0].name, 'hanoi');
		assert.strictEqual(f[0].source.path, recC);
		assert.ok(f[1].name === 'hanoi' || f[1].name === 'main');
		assert.strictEqual(f[1].source.path, recC);
		await dc.setBreakpointsRequest({ source: { path: recC }, breakpoints: [] });
		const stopped = dc.waitForEvent('stopped');
		await dc.nextRequest({ threadId: 1 });
		await stopped;
		const st2 = await dc.stackTraceRequest({ threadId: 1 });
		assert.strictEqual(st2.body.stackFrames[0].line, line + 1, 'next goes to the next C line');
	} finally {
		await dc.stop();
	}
});

test('Edit Breakpoint: a condition with a hit count, a logpoint, a bad expression', async () => {
	const dc = await client(env('LANAI_EMU'), 'lanai');
	try {
		const init = await dc.initializeRequest();
		assert.ok(init.body.supportsConditionalBreakpoints && init.body.supportsHitConditionalBreakpoints && init.body.supportsLogPoints);
		const line = firstInstruction(recS, 'fib');
		let output = '';
		dc.on('output', (e) => { output += e.body.output; });
		const stopped = dc.waitForEvent('stopped');
		let bps;
		await Promise.all([
			dc.waitForEvent('initialized').then(async () => {
				bps = (await dc.setBreakpointsRequest({ source: { path: recS }, breakpoints: [
					{ line, condition: '%r6 == 3', hitCondition: '2' },
					{ line, condition: '%r6 >= 17', logMessage: 'fib {%r6}' },
					{ line, condition: '%r6 ==' },
				] })).body.breakpoints;
				return dc.configurationDoneRequest();
			}),
			dc.launchRequest({ program: env('REC_S_ELF') }),
		]);
		assert.deepStrictEqual(bps.map((b) => b.verified), [true, true, false]);
		assert.match(bps[2].message, /bad expression/);
		const ev = await stopped;
		assert.strictEqual(ev.body.reason, 'breakpoint');
		assert.deepStrictEqual(ev.body.hitBreakpointIds, [bps[0].id]);
		const r6 = await dc.evaluateRequest({ expression: '%r6', context: 'watch' });
		assert.strictEqual(r6.body.result, '0x00000003 (3)');
		assert.ok(output.includes('fib 18\n') && output.includes('fib 17\n') && !output.includes('fib 16\n'), output);
		await dc.setBreakpointsRequest({ source: { path: recS }, breakpoints: [] });
		const exited = dc.waitForEvent('exited');
		await dc.continueRequest({ threadId: 1 });
		assert.strictEqual((await exited).body.exitCode | 0, expected('recursion'));
	} finally {
		await dc.stop();
	}
});

test('a cluster: each board a thread, a stop stops all at one time, the exit code', async () => {
	const dc = await client(env('NETVM'), 'lanai-cluster');
	try {
		const scenario = path.join(REPO, 'fixtures/netvm/scenarios/tour.json');
		const stopped = dc.waitForEvent('stopped');
		await Promise.all([
			dc.waitForEvent('initialized').then(async () => {
				const r = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'rx_data' }] });
				assert.ok(r.body.breakpoints[0].verified);
				return dc.configurationDoneRequest();
			}),
			dc.launch({ scenario, root: REPO }),
		]);
		const ev = await stopped;
		assert.strictEqual(ev.body.reason, 'function breakpoint');
		assert.strictEqual(ev.body.threadId, 2);
		assert.ok(ev.body.allThreadsStopped);
		const threads = await dc.threadsRequest();
		assert.deepStrictEqual(threads.body.threads.map((t) => t.name), ['node 0', 'node 1']);
		const time = await dc.evaluateRequest({ expression: 'time', context: 'repl' });
		const m = time.body.result.match(/node 0 cycle (\d+); node 1 cycle (\d+)/);
		assert.ok(m, time.body.result);
		// One time: the same cycle, or one board a cycle ahead, inside a two-cycle
		// instruction when the other reached the breakpoint (docs/debugging.md).
		assert.ok(Math.abs(Number(m[1]) - Number(m[2])) <= 1, 'both boards at one time: ' + time.body.result);
		assert.ok(ev.body.description.includes(`(cycle ${m[2]})`), ev.body.description);
		for (const id of [1, 2]) {
			const st = await dc.stackTraceRequest({ threadId: id });
			assert.ok(st.body.stackFrames.length > 0);
		}
		const st = await dc.stackTraceRequest({ threadId: 2 });
		assert.deepStrictEqual(st.body.stackFrames.map((f) => f.name), ['rx_data', 'rx_take', 'engines', 'main_loop']);
		assert.strictEqual(st.body.stackFrames[0].source.path, path.join(REPO, 'firmware/netvm/src/recv.s'));
		// Each board has its own SRAM: node 1's references name node 1, and the
		// disassembly view's first request at one gives node 1's pc.
		const ref = st.body.stackFrames[0].instructionPointerReference;
		assert.match(ref, /^node1:0x[0-9a-f]{8}$/);
		const dis = await dc.customRequest('disassemble', { memoryReference: ref, offset: 0, instructionOffset: 0, instructionCount: 1 });
		assert.strictEqual('node1:' + dis.body.instructions[0].address, ref);
		await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
		const exited = dc.waitForEvent('exited');
		await dc.continueRequest({ threadId: 2 });
		assert.strictEqual((await exited).body.exitCode, 0);
	} finally {
		await dc.stop();
	}
});

(async () => {
	let failed = 0;
	for (const t of tests) {
		try {
			await t.fn();
			console.log(`ok   ${t.name}`);
		} catch (e) {
			failed++;
			console.log(`FAIL ${t.name}\n     ${e.stack || e}`);
		}
	}
	console.log(`${tests.length - failed} of ${tests.length} adapter tests passed (VS Code's DebugClient)`);
	process.exit(failed ? 1 : 0);
})();
