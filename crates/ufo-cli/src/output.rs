//! Console presentation shared by the subcommands.

use ufo_core::ErrorReport;

/// Prints an error with its code and help line to stderr.
pub(crate) fn print_error(report: &ErrorReport) {
    eprintln!("error[{}]: {}", report.code, report.message);
    if let Some(help) = &report.help {
        eprintln!("  help: {help}");
    }
}

/// Prints a value as pretty JSON to stdout.
pub(crate) fn print_json<T: serde::Serialize>(value: &T) -> Result<(), ErrorReport> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| ErrorReport::new("ufo::cli::json", format!("cannot serialise output: {e}")))?;
    println!("{text}");
    Ok(())
}
