//! Evaluation of a parsed formula with the value semantics of the
//! `formulas` package 1.3.0 (its `wrap_ufunc` conversions, error
//! propagation, comparison order number < string < boolean, `_str`), on
//! the Python values OSWorld passes (floats, strings, lists).

use super::{Arg, Bin, Cv, Expr, Stop};

/// A scalar value inside `formulas`.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum FVal {
    Num(f64),
    Str(String),
    Bool(bool),
    /// An Excel error (`#VALUE!`, `#DIV/0!`, `#NUM!`): a value, true in an
    /// `if`.
    Err(&'static str),
}

impl FVal {
    /// Python truthiness of the call's result (errors are non-empty
    /// strings: true).
    pub(super) fn truthy(&self) -> bool {
        match self {
            FVal::Num(n) => *n != 0.0,
            FVal::Str(s) => !s.is_empty(),
            FVal::Bool(b) => *b,
            FVal::Err(_) => true,
        }
    }
}

const VALUE: &str = "#VALUE!";
const DIV0: &str = "#DIV/0!";
const NUM: &str = "#NUM!";

/// Why a function gave no plain value: an Excel error it returns, or a
/// stop of the whole call.
enum Fail {
    Xl(&'static str),
    Stop(Stop),
}

impl From<Stop> for Fail {
    fn from(s: Stop) -> Self {
        Fail::Stop(s)
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Refuse(why.into()))
}

/// `Fail::Xl` becomes the error value; a stop stays a stop.
fn settle(r: Result<FVal, Fail>) -> Result<FVal, Stop> {
    match r {
        Ok(v) => Ok(v),
        Err(Fail::Xl(e)) => Ok(FVal::Err(e)),
        Err(Fail::Stop(s)) => Err(s),
    }
}

/// A number result through `convert_nan`: non-finite is `#NUM!`.
fn num(x: f64) -> FVal {
    if x.is_finite() {
        FVal::Num(x)
    } else {
        FVal::Err(NUM)
    }
}

/// The first error among `vals` (`get_error`).
fn first_err(vals: &[&FVal]) -> Option<FVal> {
    vals.iter()
        .find(|v| matches!(v, FVal::Err(_)))
        .map(|v| (*v).clone())
}

/// Python's `float(s)` of a string: `Ok(None)` when it raises
/// ValueError. Refuses underscores and non-ASCII digits (accepted by
/// Python, not reproduced).
pub(in crate::checkers) fn py_float(s: &str) -> Result<Option<f64>, Stop> {
    let t = s.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    if t.contains('_') || t.chars().any(|c| c.is_numeric() && !c.is_ascii_digit()) {
        return refuse(format!(
            "string {s:?} may be a number to Python's float(), not reproduced"
        ));
    }
    let lower = t.to_ascii_lowercase();
    let body = lower.trim_start_matches(['+', '-']);
    if lower.len() - body.len() > 1 {
        return Ok(None);
    }
    let ok_shape = matches!(body, "inf" | "infinity" | "nan")
        || (body
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.e".contains(&b))
            && body.bytes().any(|b| b.is_ascii_digit()));
    Ok(if ok_shape { t.parse().ok() } else { None })
}

/// Whether a string that is not a Python number also fails the date
/// parser `formulas` tries next (dateutil): no digit and no month name.
fn date_inert(s: &str) -> bool {
    const MONTHS: &[&str] = &[
        "jan",
        "january",
        "feb",
        "february",
        "mar",
        "march",
        "apr",
        "april",
        "may",
        "jun",
        "june",
        "jul",
        "july",
        "aug",
        "august",
        "sep",
        "sept",
        "september",
        "oct",
        "october",
        "nov",
        "november",
        "dec",
        "december",
    ];
    !s.chars().any(char::is_numeric)
        && !s
            .split(|c: char| !c.is_alphabetic())
            .any(|w| MONTHS.contains(&w.to_lowercase().as_str()))
}

/// `float(x)` as `wrap_ufunc` converts inputs: booleans 0/1, strings by
/// Python's `float()` (else `#VALUE!`).
fn float_of(v: &FVal) -> Result<f64, Fail> {
    match v {
        FVal::Num(n) => Ok(*n),
        FVal::Bool(b) => Ok(f64::from(u8::from(*b))),
        FVal::Str(s) => py_float(s)?.ok_or(Fail::Xl(VALUE)),
        FVal::Err(e) => Err(Fail::Xl(e)),
    }
}

/// `_str`: booleans `TRUE`/`FALSE`, integral floats as integers, other
/// floats as Python's `str()`.
fn xl_str(v: &FVal) -> Result<String, Stop> {
    match v {
        FVal::Str(s) => Ok(s.clone()),
        FVal::Bool(b) => Ok(if *b { "TRUE" } else { "FALSE" }.to_owned()),
        FVal::Num(n) => int_digits(*n).map_or_else(|| Ok(super::super::py_float_repr(*n)), Ok),
        FVal::Err(e) => refuse(format!("text of error {e}")),
    }
    .and_then(|s| {
        if matches!(v, FVal::Num(n) if n.is_finite() && n.fract() == 0.0 && n.abs() >= 1e15) {
            refuse("text of a float of 16 or more digits")
        } else {
            Ok(s)
        }
    })
}

/// An integral finite float's digits (`'%d' % x`), for |x| < 1e15.
fn int_digits(n: f64) -> Option<String> {
    (n.is_finite() && n.fract() == 0.0 && n.abs() < 1e15).then(|| format!("{}", n as i64))
}

/// Python's `str()` of a value (SEARCH): `int` results print without
/// `.0`, floats as `repr`.
fn py_str(v: &FVal, int: bool) -> Result<String, Stop> {
    match v {
        FVal::Str(s) => Ok(s.clone()),
        FVal::Bool(b) => Ok(if *b { "True" } else { "False" }.to_owned()),
        FVal::Num(n) if int => int_digits(*n).ok_or_else(|| Stop::Refuse("a huge integer".into())),
        FVal::Num(n) => Ok(super::super::py_float_repr(*n)),
        FVal::Err(e) => refuse(format!("text of error {e}")),
    }
}

/// Whether `e` yields a Python `int` in `formulas` (for `str()`).
fn int_typed(e: &Expr) -> bool {
    match e {
        Expr::Num(_, int) => *int,
        Expr::Plus(inner) => int_typed(inner),
        Expr::Call(f, _) => matches!(f.as_str(), "LEN" | "SEARCH" | "WEEKDAY" | "INT"),
        _ => false,
    }
}

fn cv(v: &Cv) -> FVal {
    match v {
        Cv::Num(n) => FVal::Num(*n),
        Cv::Str(s) => FVal::Str(s.clone()),
    }
}

/// Evaluates `e` with the inputs bound to `args` (positionally, already
/// checked: cells get values, ranges lists).
pub(super) fn eval(e: &Expr, args: &[Arg<'_>]) -> Result<FVal, Stop> {
    match e {
        Expr::Num(n, _) => Ok(FVal::Num(*n)),
        Expr::Str(s) => Ok(FVal::Str(s.clone())),
        Expr::Bool(b) => Ok(FVal::Bool(*b)),
        Expr::Ref(i) => match args.get(*i) {
            Some(Arg::Value(v)) => Ok(cv(v)),
            _ => refuse("a range used as a single value (array results are not reproduced)"),
        },
        Expr::Neg(x) => unary(&eval(x, args)?, |n| -n),
        Expr::Percent(x) => unary(&eval(x, args)?, |n| n / 100.0),
        Expr::Plus(x) => Ok(match eval(x, args)? {
            FVal::Num(n) => num(n),
            FVal::Bool(b) => FVal::Bool(b),
            other => other,
        }),
        Expr::Bin(op, a, b) => binary(*op, &eval(a, args)?, &eval(b, args)?),
        Expr::Call(f, list) => call(f, list, args),
    }
}

fn unary(v: &FVal, f: impl Fn(f64) -> f64) -> Result<FVal, Stop> {
    settle(float_of(v).map(|n| num(f(n))))
}

fn binary(op: Bin, a: &FVal, b: &FVal) -> Result<FVal, Stop> {
    if let Some(e) = first_err(&[a, b]) {
        return Ok(e);
    }
    match op {
        Bin::Eq | Bin::Ne | Bin::Lt | Bin::Gt | Bin::Le | Bin::Ge => compare(op, a, b),
        Bin::Concat => Ok(FVal::Str(xl_str(a)? + &xl_str(b)?)),
        _ => settle((|| {
            let x = float_of(a)?;
            let y = float_of(b)?;
            Ok(match op {
                Bin::Add => num(x + y),
                Bin::Sub => num(x - y),
                Bin::Mul => num(x * y),
                Bin::Div if y == 0.0 => FVal::Err(DIV0),
                Bin::Div => num(x / y),
                _ => power(x, y)?,
            })
        })()),
    }
}

/// Python's `x ** y` on floats; the exceptions it raises
/// (ZeroDivisionError, OverflowError) are `#VALUE!` in `formulas`.
fn power(x: f64, y: f64) -> Result<FVal, Stop> {
    if !x.is_finite() || !y.is_finite() {
        return refuse("^ with a non-finite operand");
    }
    if x == 0.0 && y < 0.0 {
        return Ok(FVal::Err(VALUE));
    }
    if x < 0.0 && y.fract() != 0.0 {
        return refuse("^ of a negative base to a fractional power (a complex number in Python)");
    }
    let r = x.powf(y);
    Ok(if r.is_finite() {
        FVal::Num(r)
    } else {
        FVal::Err(VALUE)
    })
}

/// `logic_input_parser` + the comparison: (type id, value) tuples, type
/// ids number 0 < string 1 < boolean 2, strings upper-cased.
fn compare(op: Bin, a: &FVal, b: &FVal) -> Result<FVal, Stop> {
    use std::cmp::Ordering;
    let rank = |v: &FVal| match v {
        FVal::Num(_) | FVal::Err(_) => 0,
        FVal::Str(_) => 1,
        FVal::Bool(_) => 2,
    };
    let ord = match (a, b) {
        (FVal::Num(x), FVal::Num(y)) => match x.partial_cmp(y) {
            Some(o) => o,
            None => return refuse("comparison with NaN"),
        },
        (FVal::Str(x), FVal::Str(y)) => x.to_uppercase().cmp(&y.to_uppercase()),
        (FVal::Bool(x), FVal::Bool(y)) => x.cmp(y),
        _ => rank(a).cmp(&rank(b)),
    };
    Ok(FVal::Bool(match op {
        Bin::Eq => ord == Ordering::Equal,
        Bin::Ne => ord != Ordering::Equal,
        Bin::Lt => ord == Ordering::Less,
        Bin::Gt => ord == Ordering::Greater,
        Bin::Le => ord != Ordering::Greater,
        _ => ord != Ordering::Less,
    }))
}

/// An evaluated function argument.
enum ArgV<'a> {
    Scalar(FVal),
    List(&'a [Option<Cv>]),
}

fn scalars(f: &str, vals: Vec<ArgV<'_>>) -> Result<Vec<FVal>, Stop> {
    vals.into_iter()
        .map(|v| match v {
            ArgV::Scalar(s) => Ok(s),
            ArgV::List(_) => refuse(format!(
                "a range argument of {f} (arrays are not reproduced)"
            )),
        })
        .collect()
}

fn call(f: &str, list: &[Expr], args: &[Arg<'_>]) -> Result<FVal, Stop> {
    let arity_ok = match f {
        "AND" | "OR" | "MAX" | "MIN" | "SUM" | "AVERAGE" => !list.is_empty(),
        "LEFT" | "RIGHT" | "WEEKDAY" => (1..=2).contains(&list.len()),
        "SEARCH" | "MOD" | "LARGE" | "SMALL" | "ROUND" => list.len() == 2,
        _ => list.len() == 1,
    };
    if !arity_ok {
        return refuse(format!("{f} with {} arguments", list.len()));
    }
    let vals: Vec<ArgV<'_>> = list
        .iter()
        .map(|e| match e {
            Expr::Ref(i) => match args.get(*i) {
                Some(Arg::List(l)) => Ok(ArgV::List(l)),
                _ => eval(e, args).map(ArgV::Scalar),
            },
            _ => eval(e, args).map(ArgV::Scalar),
        })
        .collect::<Result<_, _>>()?;
    match f {
        "MAX" | "MIN" | "SUM" | "AVERAGE" => return aggregate(f, &vals),
        "LARGE" | "SMALL" => return nth(f == "LARGE", &vals),
        _ => {}
    }
    let v = scalars(f, vals)?;
    let refs: Vec<&FVal> = v.iter().collect();
    match f {
        "ISERROR" => return Ok(FVal::Bool(matches!(v[0], FVal::Err(_)))),
        "ISNUMBER" => {
            return Ok(FVal::Bool(match &v[0] {
                FVal::Num(_) => true,
                FVal::Str(s) => py_float(s)?.is_some(),
                FVal::Bool(_) | FVal::Err(_) => false,
            }));
        }
        "ISTEXT" => {
            return match &v[0] {
                FVal::Err(_) => refuse("ISTEXT of an error"),
                x => Ok(FVal::Bool(matches!(x, FVal::Str(_)))),
            };
        }
        _ => {}
    }
    if let Some(e) = first_err(&refs) {
        return Ok(e);
    }
    settle(plain(f, list, &v))
}

/// The functions taking scalars, after errors among the arguments.
fn plain(f: &str, list: &[Expr], v: &[FVal]) -> Result<FVal, Fail> {
    match f {
        "AND" | "OR" => logical(f == "AND", list, v),
        "NOT" => match &v[0] {
            FVal::Bool(b) => Ok(FVal::Bool(!b)),
            FVal::Num(n) => Ok(FVal::Bool(*n == 0.0)),
            _ => Err(Fail::Xl(VALUE)),
        },
        "SEARCH" => {
            let find = py_str(&v[0], int_typed(&list[0]))?.to_lowercase();
            let within = py_str(&v[1], int_typed(&list[1]))?.to_lowercase();
            match within.find(&find) {
                Some(at) => Ok(FVal::Num((within[..at].chars().count() + 1) as f64)),
                None => Err(Fail::Xl(VALUE)),
            }
        }
        "LEFT" | "RIGHT" => {
            let n = match v.get(1) {
                None => 1,
                Some(k) => chars_count(k)?,
            };
            let s: Vec<char> = xl_str(&v[0])?.chars().collect();
            let n = n.min(s.len());
            Ok(FVal::Str(if f == "LEFT" {
                s[..n].iter().collect()
            } else {
                s[s.len() - n..].iter().collect()
            }))
        }
        "LEN" => Ok(FVal::Num(xl_str(&v[0])?.chars().count() as f64)),
        "WEEKDAY" => weekday(&v[0], v.get(1)),
        "MOD" => {
            let (x, y) = (float_of(&v[0])?, float_of(&v[1])?);
            if !x.is_finite() || !y.is_finite() {
                return Err(Fail::Stop(Stop::Refuse(
                    "MOD of a non-finite number".into(),
                )));
            }
            Ok(if y == 0.0 {
                FVal::Err(DIV0)
            } else {
                num(np_mod(x, y))
            })
        }
        "ABS" => float_of(&v[0]).map(|x| num(x.abs())),
        "INT" => {
            let x = float_of(&v[0])?;
            if x.is_finite() {
                Ok(FVal::Num(x.floor()))
            } else {
                Err(Fail::Xl(VALUE)) // ValueError, OverflowError
            }
        }
        "ROUND" => round(float_of(&v[0])?, float_of(&v[1])?),
        other => Err(Fail::Stop(Stop::Refuse(format!(
            "function {other} is not evaluated here"
        )))),
    }
}

/// `int(num_chars or 0)` for LEFT/RIGHT; negative is `#VALUE!`.
fn chars_count(k: &FVal) -> Result<usize, Fail> {
    let n = match k {
        FVal::Num(n) if n.is_nan() => return Err(Fail::Xl(VALUE)),
        FVal::Num(n) if n.is_infinite() => return Err(Fail::Xl(VALUE)),
        FVal::Num(n) => n.trunc(),
        FVal::Bool(b) => f64::from(u8::from(*b)),
        _ => {
            return Err(Fail::Stop(Stop::Refuse(
                "LEFT/RIGHT with a text count".into(),
            )));
        }
    };
    if n < 0.0 {
        return Err(Fail::Xl(VALUE));
    }
    Ok(if n > 1e9 { usize::MAX } else { n as usize })
}

/// `numpy.mod` on floats: the remainder takes the divisor's sign.
pub(super) fn np_mod(x: f64, y: f64) -> f64 {
    let m = x % y;
    if m == 0.0 {
        0.0f64.copysign(y)
    } else if (y < 0.0) != (m < 0.0) {
        m + y
    } else {
        m
    }
}

/// `xround`: `sign(x) * round_half_up(abs(x * 10**int(d))) / 10**int(d)`;
/// what raises on the way (`int(inf)`, an integer too large for a float,
/// `Decimal(inf).quantize`, a division by a power that underflowed to 0)
/// is `#VALUE!`.
fn round(x: f64, d: f64) -> Result<FVal, Fail> {
    if !x.is_finite() || !d.is_finite() || d >= 309.0 {
        return Err(Fail::Xl(VALUE));
    }
    let d = d.trunc();
    // Python: `10 ** int` is an exact integer converted to the nearest
    // float; with a negative exponent, the float `pow(10.0, d)`.
    let factor: f64 = if d >= 0.0 {
        format!("1e{d}").parse().unwrap_or(f64::INFINITY)
    } else {
        10f64.powf(d)
    };
    let prod = x * factor;
    if !prod.is_finite() || factor == 0.0 {
        return Err(Fail::Xl(VALUE));
    }
    let v = prod.abs().round() / factor;
    Ok(num(if x < 0.0 { -v } else { v }))
}

/// `xweekday`: `int()` of the type then of the serial (strings through
/// `text2num`), serial in 0..=2958465, return types 1, 2, 3, 11..17.
fn weekday(x: &FVal, t: Option<&FVal>) -> Result<FVal, Fail> {
    let to_int = |v: &FVal| -> Result<f64, Fail> {
        let n = match v {
            FVal::Num(n) => *n,
            FVal::Bool(b) => f64::from(u8::from(*b)),
            FVal::Str(s) => match py_float(s)? {
                Some(n) => n,
                None if date_inert(s) => return Err(Fail::Xl(VALUE)),
                None => {
                    return Err(Fail::Stop(Stop::Refuse(format!(
                        "WEEKDAY of text {s:?}, which formulas may read as a date"
                    ))));
                }
            },
            FVal::Err(e) => return Err(Fail::Xl(e)),
        };
        if n.is_finite() {
            Ok(n.trunc())
        } else {
            Err(Fail::Xl(VALUE)) // int(): ValueError, OverflowError
        }
    };
    let n = match t {
        Some(t) => to_int(t)?,
        None => 1.0,
    };
    let s = to_int(x)?;
    if !(0.0..=2_958_465.0).contains(&s) {
        return Ok(FVal::Err(NUM));
    }
    let (shift, zero) = match n as i64 {
        1 | 2 => (n - 1.0, 7.0),
        3 => (2.0, 0.0),
        11..=17 => (n - 10.0, 7.0),
        _ => return Ok(FVal::Err(NUM)),
    };
    let r = (s + 7.0 - shift) % 7.0;
    Ok(FVal::Num(if r == 0.0 { zero } else { r }))
}

/// AND / OR: errors first; numbers by truth; a cell's text dropped (no
/// value left: `#VALUE!`); other text refused.
fn logical(and: bool, list: &[Expr], v: &[FVal]) -> Result<FVal, Fail> {
    let mut acc = and;
    let mut any = false;
    for (e, x) in list.iter().zip(v) {
        let b = match x {
            FVal::Bool(b) => *b,
            FVal::Num(n) => *n != 0.0,
            FVal::Str(_) if matches!(e, Expr::Ref(_)) => continue,
            _ => {
                return Err(Fail::Stop(Stop::Refuse(
                    "AND/OR of computed or literal text".into(),
                )));
            }
        };
        any = true;
        acc = if and { acc && b } else { acc || b };
    }
    if any {
        Ok(FVal::Bool(acc))
    } else {
        Err(Fail::Xl(VALUE))
    }
}

/// The numbers MAX / MIN / SUM / AVERAGE take: list cells that are
/// numbers (empty cells and non-numeric text skipped), scalar numbers.
fn numbers(f: &str, vals: &[ArgV<'_>]) -> Result<Vec<f64>, Fail> {
    let mut out = Vec::new();
    for v in vals {
        match v {
            ArgV::List(l) => {
                for c in l.iter().flatten() {
                    match c {
                        Cv::Num(n) => out.push(*n),
                        Cv::Str(s) => {
                            if py_float(s)?.is_some() {
                                return Err(Fail::Stop(Stop::Refuse(format!(
                                    "{f} over a range holding the numeric text {s:?}"
                                ))));
                            }
                        }
                    }
                }
            }
            ArgV::Scalar(FVal::Num(n)) => out.push(*n),
            ArgV::Scalar(FVal::Str(s)) => {
                if py_float(s)?.is_some() || !date_inert(s) {
                    return Err(Fail::Stop(Stop::Refuse(format!("{f} of the text {s:?}"))));
                }
                return Err(Fail::Xl(VALUE));
            }
            ArgV::Scalar(FVal::Bool(_)) => {
                return Err(Fail::Stop(Stop::Refuse(format!("{f} of a boolean"))));
            }
            ArgV::Scalar(FVal::Err(e)) => return Err(Fail::Xl(e)),
        }
    }
    Ok(out)
}

fn aggregate(f: &str, vals: &[ArgV<'_>]) -> Result<FVal, Stop> {
    // `raise_errors(args)` comes before anything else.
    for v in vals {
        if let ArgV::Scalar(FVal::Err(e)) = v {
            return Ok(FVal::Err(e));
        }
    }
    let xs = match numbers(f, vals) {
        Ok(xs) => xs,
        Err(fail) => return settle(Err(fail)),
    };
    let xs: Vec<f64> = if f == "SUM" {
        xs.into_iter().filter(|x| !x.is_nan()).collect()
    } else {
        if xs.iter().any(|x| x.is_nan()) {
            return refuse(format!("{f} over a NaN"));
        }
        xs
    };
    match f {
        "MAX" => Ok(num(xs.iter().copied().reduce(f64::max).unwrap_or(0.0))),
        "MIN" => Ok(num(xs.iter().copied().reduce(f64::min).unwrap_or(0.0))),
        "SUM" => Ok(num(exact_sum(f, &xs)?)),
        _ if xs.is_empty() => Ok(FVal::Err(DIV0)),
        _ => Ok(num(exact_sum(f, &xs)? / xs.len() as f64)),
    }
}

/// A sum whose value does not depend on the summation order (numpy's
/// pairwise, Python's left to right or compensated): at most two terms,
/// or integers below 2^53 in every partial sum.
fn exact_sum(f: &str, xs: &[f64]) -> Result<f64, Stop> {
    let all_int = xs
        .iter()
        .all(|x| x.fract() == 0.0 && x.abs() < 2f64.powi(52))
        && xs.iter().map(|x| x.abs()).sum::<f64>() < 2f64.powi(53);
    if xs.len() <= 2 || all_int {
        Ok(xs.iter().fold(0.0, |a, x| a + x))
    } else {
        refuse(format!(
            "{f} of more than two non-integer numbers (summation order is not reproduced)"
        ))
    }
}

/// LARGE / SMALL: the list's numbers and empty cells (NaN, sorted last),
/// text dropped; k floored as `values[floor(-k)]` / `values[floor(k-1)]`.
fn nth(large: bool, vals: &[ArgV<'_>]) -> Result<FVal, Stop> {
    let (Some(ArgV::List(list)), Some(ArgV::Scalar(k))) = (vals.first(), vals.get(1)) else {
        return refuse("LARGE/SMALL of something other than a range");
    };
    if let FVal::Err(e) = k {
        return Ok(FVal::Err(e));
    }
    let k = match k {
        FVal::Num(n) => *n,
        FVal::Bool(b) => f64::from(u8::from(*b)),
        _ => return refuse("LARGE/SMALL with a text k"),
    };
    let mut xs: Vec<f64> = list
        .iter()
        .filter_map(|c| match c {
            None => Some(f64::NAN),
            Some(Cv::Num(n)) => Some(*n),
            Some(Cv::Str(_)) => None,
        })
        .collect();
    xs.sort_by(|a, b| a.total_cmp(b).then(std::cmp::Ordering::Equal));
    // total_cmp puts negative NaN first; numpy puts every NaN last.
    xs.sort_by_key(|x| x.is_nan());
    let n = xs.len() as f64;
    if !(k >= 1.0 && k <= n) {
        return Ok(FVal::Err(NUM));
    }
    let idx = if large {
        xs.len() as i64 + (-k).floor() as i64
    } else {
        (k - 1.0).floor() as i64
    };
    Ok(usize::try_from(idx)
        .ok()
        .and_then(|i| xs.get(i))
        .map_or(FVal::Err(NUM), |x| num(*x)))
}
