// The extension's only code: it tells VS Code to start the debug adapter,
// "lanai-emu dap" for one core, "netvm dap" for a NetVM cluster and
// "lanai-sim dap" for a lanai-sim scenario, each speaking the Debug Adapter
// Protocol on standard input and output (package dap).
const vscode = require('vscode');

function activate(context) {
	const factory = {
		createDebugAdapterDescriptor(session) {
			const cfg = vscode.workspace.getConfiguration('lanai');
			const cmd = {
				'lanai-cluster': () => cfg.get('netvmPath', 'netvm'),
				'lanai-sim': () => cfg.get('simPath', 'lanai-sim'),
			}[session.type]?.() ?? cfg.get('emuPath', 'lanai-emu');
			return new vscode.DebugAdapterExecutable(cmd, ['dap']);
		},
	};
	context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('lanai', factory));
	context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('lanai-cluster', factory));
	context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('lanai-sim', factory));
}

function deactivate() {}

module.exports = { activate, deactivate };
