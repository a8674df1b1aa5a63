//! Starts `lanes lsp` for OpenCL C files in Zed.
//!
//! The binary is, in this order: `lsp.lanes.binary.path` from Zed's settings,
//! `lanes` on the worktree's PATH. `lsp.lanes.initialization_options` is
//! passed through; `lsp.lanes.settings` answers `workspace/configuration`
//! under the section `lanes`.

use zed_extension_api::{self as zed, serde_json, settings::LspSettings, LanguageServerId, Result};

const SERVER: &str = "lanes";

struct LanesExtension;

impl zed::Extension for LanesExtension {
    fn new() -> Self {
        LanesExtension
    }

    fn language_server_command(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<zed::Command> {
        let binary = LspSettings::for_worktree(SERVER, worktree)
            .ok()
            .and_then(|settings| settings.binary);
        let configured_path = binary.as_ref().and_then(|b| b.path.clone());
        let command = match configured_path {
            Some(path) => path,
            None => worktree.which("lanes").ok_or_else(|| {
                "lanes was not found on PATH: build it with `cargo build --release` and set \
                 lsp.lanes.binary.path to target/release/lanes in Zed's settings"
                    .to_string()
            })?,
        };
        let args = binary
            .as_ref()
            .and_then(|b| b.arguments.clone())
            .unwrap_or_else(|| vec!["lsp".to_string()]);
        let mut env = worktree.shell_env();
        if let Some(extra) = binary.and_then(|b| b.env) {
            env.extend(extra);
        }
        Ok(zed::Command { command, args, env })
    }

    fn language_server_initialization_options(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        Ok(LspSettings::for_worktree(SERVER, worktree)
            .ok()
            .and_then(|settings| settings.initialization_options))
    }

    fn language_server_workspace_configuration(
        &mut self,
        _language_server_id: &LanguageServerId,
        worktree: &zed::Worktree,
    ) -> Result<Option<serde_json::Value>> {
        let settings = LspSettings::for_worktree(SERVER, worktree)
            .ok()
            .and_then(|settings| settings.settings)
            .unwrap_or_else(|| serde_json::json!({}));
        Ok(Some(serde_json::json!({ "lanes": settings })))
    }
}

zed::register_extension!(LanesExtension);
