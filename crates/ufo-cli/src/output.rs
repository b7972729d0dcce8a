//! Console presentation shared by the subcommands.

use std::io::Write;
use ufo_core::ErrorReport;

/// Writes formatted text to stdout. When the reader has gone (`ufo act ... |
/// head`), the process ends quietly with success, as Unix filters do, instead of
/// panicking the way `println!` would.
pub(crate) fn write_stdout(args: std::fmt::Arguments<'_>) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(args).and_then(|()| out.flush())
        && e.kind() == std::io::ErrorKind::BrokenPipe
    {
        std::process::exit(0);
    }
}

/// `println!` that survives a closed pipe (see [`write_stdout`]).
macro_rules! outln {
    () => { $crate::output::write_stdout(format_args!("\n")) };
    ($($t:tt)*) => { $crate::output::write_stdout(format_args!("{}\n", format_args!($($t)*))) };
}

/// `print!` that survives a closed pipe (see [`write_stdout`]).
#[cfg_attr(windows, allow(unused_macros))]
macro_rules! out {
    ($($t:tt)*) => { $crate::output::write_stdout(format_args!($($t)*)) };
}

#[cfg_attr(windows, allow(unused_imports))]
pub(crate) use {out, outln};

/// Prints an error with its code and help line to stderr.
pub(crate) fn print_error(report: &ErrorReport) {
    eprintln!("{}", report.rendered());
}

/// Prints a value as pretty JSON to stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), ErrorReport> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ufo_core::Diagnostic::report(&crate::error::CliError::Json(e)))?;
    outln!("{text}");
    Ok(())
}
