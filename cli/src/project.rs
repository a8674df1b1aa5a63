//! The settings of a file for the command line: the nearest `lanes.toml`
//! (in the file's directory or a parent: the root of the project, as the
//! language server's workspace root) under the flags, read into the one
//! settings model every face uses (lanes-pipeline's `settings`, which
//! documents the keys).

use std::path::Path;
use std::process::ExitCode;

use lanes_pipeline::settings::{self, CommandLine, Layer};
use lanes_pipeline::Settings;

/// The settings for `file`: the flags over its `lanes.toml`. Errors are
/// printed (`lanes.toml:line:column: message`); the exit status is 2, as
/// for other bad usage.
pub fn settings_for(file: &Path, flags: &CommandLine) -> Result<Settings, ExitCode> {
    let layer = match settings::find(file) {
        Some(path) => match settings::load(&path) {
            Ok(l) => l,
            Err(errors) => {
                for e in errors {
                    eprintln!("error: {e}");
                }
                return Err(ExitCode::from(2));
            }
        },
        None => Layer::default(),
    };
    flags.over(layer).map_err(|e| {
        eprintln!("error: {e}");
        ExitCode::from(2)
    })
}
