//! Reads a command's arguments the way its program will, and refuses any
//! option not on the program's allowlist ([`super::programs`]).
//!
//! getopt's rules, as GNU programs apply them (no `POSIXLY_CORRECT`: the
//! environment is cleared), and where each could smuggle an option past a
//! check that reads them differently:
//! - `--` ends the options; every word after it is an operand, whatever it
//!   starts with.
//! - A long option is accepted only when spelled out in full: getopt takes
//!   any unambiguous prefix (`--co` for `--compress-program`), and the
//!   allowlist names only some of a program's options, so a prefix cannot be
//!   resolved safely here. `--name=value` gives an argument.
//! - A short-option cluster (`-rn`) is read letter by letter; a letter that
//!   takes an argument takes the rest of the cluster or, when none is left,
//!   the next word (`-k2`, `-k 2`), which is then no operand.
//! - Options and operands may come in any order (GNU permutes).
//! - A lone `-` is an operand (standard input).

use super::programs::{FIND_NEWER_LETTERS, FIND_PREDICATES, Operands, Syntax, UNIVERSAL_LONG};

/// Whether an option takes an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Nothing,
    Required,
    /// Attached only (`-I=x` is not, `-Ix` is; `--name=x`).
    Optional,
}

/// What `letter` is in getopt's short-option string, if listed.
fn short_option(short: &str, letter: char) -> Option<Takes> {
    for (i, c) in short.char_indices() {
        if c == ':' {
            continue;
        }
        let rest = &short[i + c.len_utf8()..];
        if c == letter {
            return Some(if rest.starts_with("::") {
                Takes::Optional
            } else if rest.starts_with(':') {
                Takes::Required
            } else {
                Takes::Nothing
            });
        }
    }
    None
}

/// What `--name` is in the long-option list, if listed (exactly).
fn long_option(long: &[&str], name: &str) -> Option<Takes> {
    if UNIVERSAL_LONG.contains(&name) {
        return Some(Takes::Nothing);
    }
    long.iter().find_map(|l| {
        if let Some(n) = l.strip_suffix('=') {
            (n == name).then_some(Takes::Required)
        } else if let Some(n) = l.strip_suffix('?') {
            (n == name).then_some(Takes::Optional)
        } else {
            (*l == name).then_some(Takes::Nothing)
        }
    })
}

/// The long options a program accepts, spelled for a message.
fn spelled(long: &[&str]) -> String {
    let names: Vec<String> = long
        .iter()
        .map(|l| format!("--{}", l.trim_end_matches(['=', '?'])))
        .collect();
    names.join(", ")
}

/// Checks `args` of `program` against its syntax; the error says which
/// argument is refused and what the program accepts.
pub(crate) fn check(program: &str, syntax: Syntax, args: &[String]) -> Result<(), String> {
    match syntax {
        Syntax::Any => Ok(()),
        Syntax::Find => check_find(args),
        Syntax::Getopt {
            short,
            long,
            operands,
            numeric,
        } => check_getopt(program, short, long, operands, numeric, args),
    }
}

fn check_getopt(
    program: &str,
    short: &str,
    long: &[&str],
    operands: Operands,
    numeric: bool,
    args: &[String],
) -> Result<(), String> {
    let refuse_option = |a: &str, why: String| {
        Err(format!(
            "{program} {a}: {why}; the options {program} may be given here are: {}{}",
            if short.is_empty() {
                "none".to_owned()
            } else {
                format!("-{}", short.replace(':', ""))
            },
            if long.is_empty() {
                String::new()
            } else {
                format!(" and {}", spelled(long))
            }
        ))
    };
    let mut ops: Vec<&str> = Vec::new();
    let mut i = 0;
    let mut ended = false;
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if ended || a == "-" || !a.starts_with('-') {
            ops.push(a);
            continue;
        }
        if a == "--" {
            ended = true;
            continue;
        }
        if let Some(body) = a.strip_prefix("--") {
            let (name, value) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (body, None),
            };
            match (long_option(long, name), value) {
                (None, _) => {
                    let partial = long.iter().any(|l| {
                        let l = l.trim_end_matches(['=', '?']);
                        l.starts_with(name) && l != name
                    });
                    let why = if partial {
                        "options must be spelled out in full (an abbreviation could mean another option)".to_owned()
                    } else {
                        "this option is not allowed (it could write, run a program, change the system or never end)".to_owned()
                    };
                    return refuse_option(a, why);
                }
                (Some(Takes::Nothing), Some(_)) => {
                    return refuse_option(a, format!("--{name} takes no value"));
                }
                (Some(Takes::Required), None) => {
                    if i >= args.len() {
                        return refuse_option(a, format!("--{name} needs a value"));
                    }
                    i += 1;
                }
                _ => {}
            }
            continue;
        }
        let cluster = &a[1..];
        if numeric && cluster.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        for (at, c) in cluster.char_indices() {
            match short_option(short, c) {
                None => {
                    return refuse_option(
                        a,
                        format!(
                            "-{c} is not allowed (it could write, run a program, change the system or never end)"
                        ),
                    );
                }
                Some(Takes::Nothing) => {}
                Some(Takes::Optional) => break,
                Some(Takes::Required) => {
                    if at + c.len_utf8() == cluster.len() {
                        if i >= args.len() {
                            return refuse_option(a, format!("-{c} needs a value"));
                        }
                        i += 1;
                    }
                    break;
                }
            }
        }
    }
    match operands {
        Operands::Any => Ok(()),
        Operands::None => match ops.first() {
            Some(o) => Err(format!(
                "{program} takes no operand here (got {o:?}): with one it would change the system"
            )),
            None => Ok(()),
        },
        Operands::AtMost(n) if ops.len() > n => Err(format!(
            "{program} takes at most {n} operand(s) here (got {}: a further one would be written or changed)",
            ops.len()
        )),
        Operands::AtMost(_) => Ok(()),
        Operands::Prefixed(p) => match ops.iter().find(|o| !o.starts_with(p)) {
            Some(o) => Err(format!(
                "{program} takes only operands starting with {p:?} here (got {o:?}: it would change the system)"
            )),
            None => Ok(()),
        },
        Operands::Words(w) => match ops.iter().find(|o| !w.contains(o)) {
            Some(o) => Err(format!(
                "{program} takes only these operands here: {} (got {o:?})",
                w.join(", ")
            )),
            None => Ok(()),
        },
    }
}

/// `find`: leading `-H`/`-L`/`-P` (and `-D`/`-O` with a value), start
/// points, then an expression in which every word starting with `-` must be
/// a listed test or action; the word after one that takes an argument is
/// that argument (a pattern may start with `-`).
fn check_find(args: &[String]) -> Result<(), String> {
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" | "-O" => i += 2,
            s if s.starts_with("-O") && s.len() > 2 => i += 1,
            _ => break,
        }
    }
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        if !a.starts_with('-') || a == "-" {
            continue;
        }
        let newer = a
            .strip_prefix("-newer")
            .filter(|xy| xy.len() == 2 && xy.chars().all(|c| FIND_NEWER_LETTERS.contains(c)));
        let takes = match FIND_PREDICATES.iter().find(|(p, _)| *p == a) {
            Some((_, t)) => *t,
            None if newer.is_some() => true,
            None => {
                let allowed: Vec<&str> = FIND_PREDICATES.iter().map(|(p, _)| *p).collect();
                return Err(format!(
                    "find {a}: not allowed (find may only read and print here); its tests and actions allowed here are: {}",
                    allowed.join(" ")
                ));
            }
        };
        if takes {
            if i >= args.len() {
                return Err(format!("find {a} needs a value"));
            }
            i += 1;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn getopt_strings_are_read_as_getopt_reads_them() {
        assert_eq!(short_option("n:c:qv", 'n'), Some(Takes::Required));
        assert_eq!(short_option("n:c:qv", 'q'), Some(Takes::Nothing));
        assert_eq!(short_option("d:I::r:", 'I'), Some(Takes::Optional));
        assert_eq!(short_option("d:I::r:", 'r'), Some(Takes::Required));
        assert_eq!(short_option("n:c:qv", 'f'), None);
        assert_eq!(short_option("n:c:qv", ':'), None);
        assert_eq!(
            long_option(&["lines=", "quiet", "color?"], "lines"),
            Some(Takes::Required)
        );
        assert_eq!(
            long_option(&["lines=", "quiet", "color?"], "color"),
            Some(Takes::Optional)
        );
        assert_eq!(long_option(&["lines=", "quiet"], "lin"), None);
        assert_eq!(long_option(&[], "help"), Some(Takes::Nothing));
    }
}
