//! The `lanes` command line.

mod build;
mod check;
mod explain;
mod project;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(
    name = "lanes",
    version,
    about = "A vectorization advisor and SIMD compiler for OpenCL C kernels"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check kernels: syntax, types, unsupported features (exit status 1 on errors).
    Check(check::CheckArgs),
    /// Show how each kernel runs on SIMD lanes: shapes, divergence, memory accesses.
    Explain(explain::ExplainArgs),
    /// Compile kernels to SIMD object code (or assembly, LLVM IR, vector IR) and a C header.
    Build(build::BuildArgs),
    /// Compile a kernel in memory and run it on all cores (optionally verified and timed).
    Run(run::RunArgs),
    /// List the SIMD targets and their widths.
    Targets,
    /// Run the language server on standard input and output.
    Lsp(LspArgs),
    /// The findings cache of `lanes build` and `lanes check`: where it is,
    /// how big, and removing it.
    Cache {
        #[command(subcommand)]
        what: CacheCommand,
    },
}

#[derive(Subcommand)]
enum CacheCommand {
    /// Print the cache directory, its entries and their size.
    Show,
    /// Remove every entry.
    Clean,
}

/// What LSP clients pass when they start a server: vscode-languageclient
/// adds `--stdio` (the transport; standard input and output are the only
/// one) and may add `--clientProcessId=N`.
#[derive(clap::Args)]
struct LspArgs {
    /// Talk over standard input and output (the default and only transport).
    #[arg(long)]
    stdio: bool,
    /// The editor's process id (accepted and ignored).
    #[arg(long = "clientProcessId", value_name = "PID")]
    client_process_id: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Color {
    Auto,
    Always,
    Never,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Deeply nested input is rejected by depth limits in the front end; a
    // large stack is the second line of defence.
    let worker = std::thread::Builder::new()
        .name("lanes".into())
        .stack_size(256 << 20)
        .spawn(move || match cli.command {
            Command::Check(args) => check::run(args),
            Command::Explain(args) => explain::run(args),
            Command::Build(args) => build::run(args),
            Command::Run(args) => run::run(args),
            Command::Targets => targets(),
            Command::Lsp(_) => lsp(),
            Command::Cache { what } => cache(what),
        });
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            eprintln!(
                "error: internal compiler error (panic); please report this with the input file"
            );
            ExitCode::from(101)
        }
        Err(e) => {
            eprintln!("error: cannot start worker thread: {e}");
            ExitCode::from(101)
        }
    }
}

fn lsp() -> ExitCode {
    match lanes_lsp::run() {
        Ok(true) => ExitCode::SUCCESS,
        // LSP: `exit` without a `shutdown` before it.
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: cannot start the language server: {e}");
            ExitCode::from(1)
        }
    }
}

fn cache(what: CacheCommand) -> ExitCode {
    let Some(cache) = lanes_pipeline::Cache::from_env(false) else {
        println!("the findings cache is off (LANES_CACHE)");
        return ExitCode::SUCCESS;
    };
    match what {
        CacheCommand::Show => {
            let (files, bytes) = cache.size();
            println!("{}", cache.dir().display());
            println!("{files} entries, {bytes} bytes");
            match cache.max_bytes() {
                0 => println!("no bound on its size (LANES_CACHE_MAX_SIZE=0)"),
                max => println!("kept within {max} bytes (LANES_CACHE_MAX_SIZE), least recently used removed first"),
            }
        }
        CacheCommand::Clean => match cache.clean() {
            Ok((files, bytes)) => {
                println!(
                    "removed {files} entries ({bytes} bytes) from {}",
                    cache.dir().display()
                )
            }
            Err(e) => {
                eprintln!("error: cannot clean `{}`: {e}", cache.dir().display());
                return ExitCode::from(1);
            }
        },
    }
    ExitCode::SUCCESS
}

fn targets() -> ExitCode {
    use lanes_vectorizer::target::{Target, TARGETS};
    let host = Target::host();
    println!(
        "{:<16} {:>5}  {:<48} runs here",
        "target", "width", "instruction set"
    );
    for t in TARGETS {
        let here = if t.isa.runs_here() { "yes" } else { "no" };
        println!(
            "{:<16} {:>5}  {:<48} {here}",
            t.name,
            t.width,
            t.isa.description()
        );
    }
    println!(
        "{:<16} {:>5}  {:<48} yes",
        "host",
        host.width,
        format!("= {} (the default)", host.name)
    );
    ExitCode::SUCCESS
}
