//! Spreadsheet formulas as OSWorld's `load_xlsx_styles` evaluates a
//! conditional format's: compiled by the `formulas` package (1.3.0), whose
//! function takes one positional parameter per reference the formula names
//! (`$` removed, upper-cased, ranges as `A1:B5`, sorted as strings,
//! duplicates merged), and called with the tested cell's value first and
//! one list per absolute range OSWorld found in the formula text.
//!
//! A subset is reproduced exactly (see docs/EVAL.md): numbers, strings,
//! `TRUE`/`FALSE`, the operators `+ - * / ^ & % = <> < > <= >=`, cell and
//! range references without a sheet, and the functions `AND OR NOT ISERROR
//! ISNUMBER ISTEXT SEARCH LEFT RIGHT LEN WEEKDAY MOD MAX MIN SUM AVERAGE
//! LARGE SMALL ABS ROUND INT`. Anything else is refused (an `Err` naming
//! what), never approximated.

mod eval;

pub(super) use eval::py_float;

/// A value OSWorld's `read_cell_value` returns other than `None`: a float
/// or a string.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Cv {
    /// A number cell (dates are their serial numbers).
    Num(f64),
    /// Text: a shared or inline string, a formula's string result, an
    /// error cell's text (`#DIV/0!` is a string here, not an error).
    Str(String),
}

/// One positional argument of a compiled formula's call.
#[derive(Clone, Copy, Debug)]
pub(super) enum Arg<'a> {
    /// A single value (OSWorld passes the tested cell's value first).
    Value(&'a Cv),
    /// A flat row-major list of a range's values, `None` for empty cells.
    List(&'a [Option<Cv>]),
}

/// Why a call gave no value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Stop {
    /// The call raised inside `formulas` (too many or too few arguments,
    /// an overflow): OSWorld catches it and the cell is not active.
    CallError,
    /// Outside the reproduced subset: the reason.
    Refuse(String),
}

/// A constant formula's value as `f()` returns it (cellIs references).
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Const {
    /// A number (`5`, `5.5`, `-5`).
    Num(f64),
    /// A string literal.
    Str(String),
    /// `TRUE` or `FALSE`.
    Bool(bool),
}

/// A binary operator, by increasing precedence group.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Bin {
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    Concat,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
}

impl Bin {
    fn precedence(self) -> u8 {
        match self {
            Bin::Eq | Bin::Ne | Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge => 1,
            Bin::Concat => 2,
            Bin::Add | Bin::Sub => 3,
            Bin::Mul | Bin::Div => 4,
            Bin::Pow => 5,
        }
    }
}

/// A parsed formula.
#[derive(Clone, Debug, PartialEq)]
enum Expr {
    /// A number literal; `true` when written without `.` or exponent
    /// (Python `int`, which `str()` prints without `.0`).
    Num(f64, bool),
    Str(String),
    Bool(bool),
    /// A reference: index into the sorted inputs.
    Ref(usize),
    Neg(Box<Expr>),
    Plus(Box<Expr>),
    Percent(Box<Expr>),
    Bin(Bin, Box<Expr>, Box<Expr>),
    Call(String, Vec<Expr>),
}

/// A compiled formula: its expression and its sorted input names.
#[derive(Clone, Debug)]
pub(super) struct Formula {
    expr: Expr,
    inputs: Vec<String>,
}

/// The functions evaluated here (see the module docs).
const FUNCTIONS: &[&str] = &[
    "AND", "OR", "NOT", "ISERROR", "ISNUMBER", "ISTEXT", "SEARCH", "LEFT", "RIGHT", "LEN",
    "WEEKDAY", "MOD", "MAX", "MIN", "SUM", "AVERAGE", "LARGE", "SMALL", "ABS", "ROUND", "INT",
];

/// Compiles `text` (a `<formula>` without `=`) for evaluation: [`parse`],
/// and every function it calls is one evaluated here.
pub(super) fn compile(text: &str) -> Result<Formula, String> {
    let f = parse(text)?;
    check_functions(&f.expr)?;
    Ok(f)
}

/// Parses `text` (a `<formula>` without `=`), any function name allowed.
/// `Err` refuses it: a construct outside the subset, or text the subset
/// does not parse (whether `formulas` would parse it is not reproduced).
pub(super) fn parse(text: &str) -> Result<Formula, String> {
    let tokens = lex(text)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        names: Vec::new(),
    };
    let expr = p.expr(1)?;
    if p.at != tokens.len() {
        return Err(format!("formula {text:?} does not parse here"));
    }
    let mut inputs = p.names.clone();
    inputs.sort();
    inputs.dedup();
    let expr = resolve(expr, &p.names, &inputs);
    Ok(Formula { expr, inputs })
}

/// Whether `expr` calls only the functions evaluated here.
fn check_functions(expr: &Expr) -> Result<(), String> {
    match expr {
        Expr::Call(name, args) => {
            if !FUNCTIONS.contains(&name.as_str()) {
                return Err(format!("function {name} is not evaluated here"));
            }
            args.iter().try_for_each(check_functions)
        }
        Expr::Neg(e) | Expr::Plus(e) | Expr::Percent(e) => check_functions(e),
        Expr::Bin(_, a, b) => {
            check_functions(a)?;
            check_functions(b)
        }
        Expr::Num(..) | Expr::Str(_) | Expr::Bool(_) | Expr::Ref(_) => Ok(()),
    }
}

/// Replaces the parse-time reference numbers (into `names`) by indices
/// into the sorted, deduplicated `inputs`.
fn resolve(expr: Expr, names: &[String], inputs: &[String]) -> Expr {
    let again = |e: Box<Expr>| Box::new(resolve(*e, names, inputs));
    match expr {
        Expr::Ref(i) => {
            let name = names.get(i).map(String::as_str).unwrap_or_default();
            Expr::Ref(inputs.iter().position(|n| n == name).unwrap_or(usize::MAX))
        }
        Expr::Neg(e) => Expr::Neg(again(e)),
        Expr::Plus(e) => Expr::Plus(again(e)),
        Expr::Percent(e) => Expr::Percent(again(e)),
        Expr::Bin(op, a, b) => Expr::Bin(op, again(a), again(b)),
        Expr::Call(f, args) => Expr::Call(
            f,
            args.into_iter()
                .map(|a| resolve(a, names, inputs))
                .collect(),
        ),
        other => other,
    }
}

impl Formula {
    /// The input names, sorted (`["A1", "A1:A5"]`).
    pub(super) fn inputs(&self) -> &[String] {
        &self.inputs
    }

    /// Whether input `i` is a range (`A1:A5`, `A:A`).
    fn is_range(&self, i: usize) -> bool {
        self.inputs.get(i).is_some_and(|n| n.contains(':'))
    }

    /// `bool(condition(*args))`: the call's result as OSWorld's `if` reads
    /// it (errors are true). A wrong number of arguments is a call error.
    pub(super) fn truthy(&self, args: &[Arg<'_>]) -> Result<bool, Stop> {
        if args.len() != self.inputs.len() {
            return Err(Stop::CallError);
        }
        for (i, a) in args.iter().enumerate() {
            match (self.is_range(i), a) {
                (true, Arg::Value(_)) => {
                    return Err(Stop::Refuse(format!(
                        "a single value is bound to range input {} (array results are not reproduced)",
                        self.inputs[i]
                    )));
                }
                (false, Arg::List(_)) => {
                    return Err(Stop::Refuse(format!(
                        "a list is bound to cell input {} (array results are not reproduced)",
                        self.inputs[i]
                    )));
                }
                _ => {}
            }
        }
        Ok(eval::eval(&self.expr, args)?.truthy())
    }

    /// What `f()` returns for a cellIs formula: `Ok(None)` when it names
    /// a reference (the call raises and OSWorld skips the rule); `Err`
    /// refuses a constant other than a number, a negated number, a string
    /// or a boolean.
    pub(super) fn constant(&self) -> Result<Option<Const>, String> {
        if !self.inputs.is_empty() {
            return Ok(None);
        }
        match &self.expr {
            Expr::Num(n, _) => Ok(Some(Const::Num(*n))),
            Expr::Neg(e) => match **e {
                Expr::Num(n, _) => Ok(Some(Const::Num(-n))),
                _ => Err("a computed cellIs constant is not reproduced".into()),
            },
            Expr::Str(s) => Ok(Some(Const::Str(s.clone()))),
            Expr::Bool(b) => Ok(Some(Const::Bool(*b))),
            _ => Err("a computed cellIs constant is not reproduced".into()),
        }
    }
}

/// One absolute reference OSWorld's `_absolute_range_pattern` finds.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum AbsRef {
    /// `$A$1:$B$5`: zero-based (row, column) corners as written.
    Range((usize, usize), (usize, usize)),
    /// A single `$A$1` (OSWorld builds `CellRange("A1:")`, which raises).
    Cell,
}

/// The absolute references in `text`, in order, as
/// `\$([A-Z]{1,3})\$(\d+)(?::\$([A-Z]{1,3})\$(\d+))?` finds them (in
/// string literals too). `Err` for a row or column number out of range.
pub(super) fn abs_refs(text: &str) -> Result<Vec<AbsRef>, String> {
    static PATTERN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"\$([A-Z]{1,3})\$(\d+)(?::\$([A-Z]{1,3})\$(\d+))?").ok()
    });
    let re = PATTERN
        .as_ref()
        .ok_or("the absolute range pattern does not compile")?;
    let corner = |col: &str, row: &str| -> Result<(usize, usize), String> {
        if !row.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("row {row:?} is not ASCII digits"));
        }
        super::workbook::parse_cell(&format!("{col}{row}"))
            .filter(|&(r, c)| r < 1_048_576 && c < 16_384)
            .ok_or_else(|| format!("absolute reference {col}{row} is out of the sheet"))
    };
    re.captures_iter(text)
        .map(|c| match (c.get(3), c.get(4)) {
            (Some(c2), Some(r2)) => Ok(AbsRef::Range(
                corner(&c[1], &c[2])?,
                corner(c2.as_str(), r2.as_str())?,
            )),
            _ => Ok(AbsRef::Cell),
        })
        .collect()
}

/// A token of formula text.
#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num(f64, bool),
    Str(String),
    /// A cell or range reference, normalised (`A1`, `A1:B5`, `A:A`).
    Ref(String),
    /// A name followed by `(`.
    Func(String),
    Bool(bool),
    Op(&'static str),
    Open,
    Close,
    Comma,
}

/// Splits formula text into tokens; `Err` for anything outside the subset.
fn lex(text: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        match c {
            '"' => {
                let mut s = String::new();
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err(format!("unterminated string in {text:?}")),
                        Some('"') if chars.get(i + 1) == Some(&'"') => {
                            s.push('"');
                            i += 2;
                        }
                        Some('"') => {
                            i += 1;
                            break;
                        }
                        Some(&ch) => {
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                out.push(Tok::Str(s));
            }
            '0'..='9' | '.' => {
                let start = i;
                while chars
                    .get(i)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.')
                {
                    i += 1;
                }
                if matches!(chars.get(i), Some('e' | 'E')) {
                    i += 1;
                    if matches!(chars.get(i), Some('+' | '-')) {
                        i += 1;
                    }
                    while chars.get(i).is_some_and(char::is_ascii_digit) {
                        i += 1;
                    }
                }
                let s: String = chars[start..i].iter().collect();
                if chars.get(i) == Some(&':') || chars.get(i).is_some_and(|c| c.is_alphabetic()) {
                    return Err(format!(
                        "row ranges and numbers followed by names are not evaluated here ({text:?})"
                    ));
                }
                let n: f64 = s
                    .parse()
                    .map_err(|_| format!("bad number {s:?} in {text:?}"))?;
                if !n.is_finite() {
                    return Err(format!("number {s:?} overflows"));
                }
                let int = !s.contains(['.', 'e', 'E']);
                if int && s.len() > 15 {
                    return Err(format!("integer {s:?} has more digits than a float keeps"));
                }
                out.push(Tok::Num(n, int));
            }
            '$' | 'A'..='Z' | 'a'..='z' | '_' => {
                let (tok, next) = word(&chars, i, text)?;
                out.push(tok);
                i = next;
            }
            '(' => {
                out.push(Tok::Open);
                i += 1;
            }
            ')' => {
                out.push(Tok::Close);
                i += 1;
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1;
            }
            '<' | '>' => {
                let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
                let op = match two.as_str() {
                    "<=" => "<=",
                    ">=" => ">=",
                    "<>" => "<>",
                    _ if c == '<' => "<",
                    _ => ">",
                };
                i += op.len();
                out.push(Tok::Op(op));
            }
            '=' | '+' | '-' | '*' | '/' | '^' | '&' | '%' => {
                out.push(Tok::Op(match c {
                    '=' => "=",
                    '+' => "+",
                    '-' => "-",
                    '*' => "*",
                    '/' => "/",
                    '^' => "^",
                    '&' => "&",
                    _ => "%",
                }));
                i += 1;
            }
            other => {
                return Err(format!(
                    "{other:?} in formula {text:?} is outside the evaluated subset (sheets, names, arrays, spaces)"
                ));
            }
        }
    }
    Ok(out)
}

/// A reference, a function name or a boolean starting at `chars[i]`.
fn word(chars: &[char], mut i: usize, text: &str) -> Result<(Tok, usize), String> {
    let start = i;
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '$' | '_' | '.'))
    {
        i += 1;
    }
    let w: String = chars[start..i].iter().collect();
    let upper = w.to_ascii_uppercase();
    if chars.get(i) == Some(&'(') && !w.contains('$') {
        return Ok((Tok::Func(upper), i));
    }
    if upper == "TRUE" || upper == "FALSE" {
        return Ok((Tok::Bool(upper == "TRUE"), i));
    }
    let first = cell_name(&upper).or_else(|| column_name(&upper));
    let Some(first) = first else {
        return Err(format!(
            "{w:?} in formula {text:?} is not a cell reference (names are not evaluated here)"
        ));
    };
    if chars.get(i) != Some(&':') {
        if !first.1 {
            return Err(format!("a lone column {w:?} in {text:?}"));
        }
        return Ok((Tok::Ref(first.0), i));
    }
    let (second, next) = {
        let s = i + 1;
        let mut j = s;
        while chars
            .get(j)
            .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '$')
        {
            j += 1;
        }
        let w2: String = chars[s..j].iter().collect::<String>().to_ascii_uppercase();
        (cell_name(&w2).or_else(|| column_name(&w2)), j)
    };
    let Some(second) = second else {
        return Err(format!("bad range in formula {text:?}"));
    };
    if first.1 != second.1 {
        return Err(format!("mixed cell and column range in {text:?}"));
    }
    let ordered = if first.1 {
        let (a, b) = (
            super::workbook::parse_cell(&first.0),
            super::workbook::parse_cell(&second.0),
        );
        matches!((a, b), (Some(a), Some(b)) if a.0 <= b.0 && a.1 <= b.1)
    } else {
        col_number(&first.0) <= col_number(&second.0)
    };
    if !ordered {
        return Err(format!(
            "a range written from its bottom-right corner in {text:?}"
        ));
    }
    Ok((Tok::Ref(format!("{}:{}", first.0, second.0)), next))
}

/// `$A$1`, `A$1`, `$A1`, `A1` → (`A1`, true); `None` for other text.
fn cell_name(w: &str) -> Option<(String, bool)> {
    let s = w.strip_prefix('$').unwrap_or(w);
    let letters: String = s.chars().take_while(char::is_ascii_uppercase).collect();
    let rest = &s[letters.len()..];
    let rest = rest.strip_prefix('$').unwrap_or(rest);
    if letters.is_empty()
        || letters.len() > 3
        || rest.is_empty()
        || !rest.bytes().all(|b| b.is_ascii_digit())
        || rest.starts_with('0')
    {
        return None;
    }
    Some((format!("{letters}{rest}"), true))
}

/// `$A`, `A` (a whole-column range end) → (`A`, false).
fn column_name(w: &str) -> Option<(String, bool)> {
    let s = w.strip_prefix('$').unwrap_or(w);
    (!s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_uppercase()))
        .then(|| (s.to_owned(), false))
}

fn col_number(letters: &str) -> usize {
    letters
        .bytes()
        .fold(0, |acc, b| acc * 26 + usize::from(b - b'A') + 1)
}

/// A precedence-climbing parser over the tokens; collects reference names.
struct Parser<'t> {
    tokens: &'t [Tok],
    at: usize,
    names: Vec<String>,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn fail<T>(&self) -> Result<T, String> {
        Err(format!(
            "the formula does not parse here (at token {})",
            self.at
        ))
    }

    fn expr(&mut self, min: u8) -> Result<Expr, String> {
        let mut lhs = self.operand()?;
        while let Some(Tok::Op(o)) = self.peek() {
            let op = match *o {
                "=" => Bin::Eq,
                "<>" => Bin::Ne,
                "<" => Bin::Lt,
                ">" => Bin::Gt,
                "<=" => Bin::Le,
                ">=" => Bin::Ge,
                "&" => Bin::Concat,
                "+" => Bin::Add,
                "-" => Bin::Sub,
                "*" => Bin::Mul,
                "/" => Bin::Div,
                "^" => Bin::Pow,
                _ => return self.fail(),
            };
            let prec = op.precedence();
            if prec < min {
                break;
            }
            self.at += 1;
            let rhs = self.expr(prec + 1)?;
            if op == Bin::Pow && matches!(lhs, Expr::Bin(Bin::Pow, ..)) {
                return Err("chained ^ is not evaluated here".into());
            }
            lhs = Expr::Bin(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    /// Unary signs, a primary, postfix `%`s.
    fn operand(&mut self) -> Result<Expr, String> {
        match self.peek() {
            Some(Tok::Op("-")) => {
                self.at += 1;
                return Ok(Expr::Neg(Box::new(self.operand()?)));
            }
            Some(Tok::Op("+")) => {
                self.at += 1;
                return Ok(Expr::Plus(Box::new(self.operand()?)));
            }
            _ => {}
        }
        let mut e = self.primary()?;
        while self.peek() == Some(&Tok::Op("%")) {
            self.at += 1;
            e = Expr::Percent(Box::new(e));
        }
        Ok(e)
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.peek().cloned() else {
            return self.fail();
        };
        self.at += 1;
        Ok(match tok {
            Tok::Num(n, int) => Expr::Num(n, int),
            Tok::Str(s) => Expr::Str(s),
            Tok::Bool(b) => Expr::Bool(b),
            Tok::Ref(name) => {
                self.names.push(name);
                Expr::Ref(self.names.len() - 1)
            }
            Tok::Open => {
                let e = self.expr(1)?;
                if self.peek() != Some(&Tok::Close) {
                    return self.fail();
                }
                self.at += 1;
                e
            }
            Tok::Func(name) => {
                self.at += 1; // the `(`
                let mut args = Vec::new();
                if self.peek() == Some(&Tok::Close) {
                    self.at += 1;
                } else {
                    loop {
                        if matches!(self.peek(), Some(Tok::Comma | Tok::Close)) {
                            return Err("empty function arguments are not evaluated here".into());
                        }
                        args.push(self.expr(1)?);
                        match self.peek() {
                            Some(Tok::Comma) => self.at += 1,
                            Some(Tok::Close) => {
                                self.at += 1;
                                break;
                            }
                            _ => return self.fail(),
                        }
                    }
                }
                match name.as_str() {
                    "TRUE" | "FALSE" if args.is_empty() => Expr::Bool(name == "TRUE"),
                    _ => Expr::Call(name, args),
                }
            }
            Tok::Op(_) | Tok::Close | Tok::Comma => return self.fail(),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests;
