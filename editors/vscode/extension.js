// The extension's only code: it tells VS Code to start the debug adapter,
// "lanai-emu dap" for one core and "netvm dap" for a cluster, each speaking
// the Debug Adapter Protocol on standard input and output (package dap).
const vscode = require('vscode');

function activate(context) {
	const factory = {
		createDebugAdapterDescriptor(session) {
			const cfg = vscode.workspace.getConfiguration('lanai');
			const cmd = session.type === 'lanai-cluster' ? cfg.get('netvmPath', 'netvm') : cfg.get('emuPath', 'lanai-emu');
			return new vscode.DebugAdapterExecutable(cmd, ['dap']);
		},
	};
	context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('lanai', factory));
	context.subscriptions.push(vscode.debug.registerDebugAdapterDescriptorFactory('lanai-cluster', factory));
}

function deactivate() {}

module.exports = { activate, deactivate };
