//! The conditional-formatting pass of OSWorld's `load_xlsx_styles`, as
//! written: the sheet's `<conditionalFormatting>` blocks as openpyxl
//! groups them (equal sqref sets merged into the first one's place, rules
//! in document order, priority and stopIfTrue ignored), and per rule the
//! state OSWorld's loop shares between rules (`condition`, `arguments`,
//! `operator`, `references`, `is_active`, read when called), so a rule
//! type it does not handle re-applies the previous rule's test with the
//! new rule's dxf. Cells are tested in each range row by row, skipping
//! empty reads and leaving a range after more than 50 of them (counted
//! per rule); active cells take the rule's dxf values (last rule wins).

use std::collections::{BTreeMap, BTreeSet};

use roxmltree::Node;
use serde_json::Value;

use super::cellstyle::{PropError, SheetStyles, child, children, color_rgb, font_prop};
use super::cellvalue::{ReadError, SheetValues};
use super::formula::{self, AbsRef, Arg, Const, Cv, Formula, Stop};
use super::workbook::parse_cell;

/// Why the styles of a sheet cannot be given.
#[derive(Debug)]
pub(super) enum StyleError {
    /// OSWorld's function raises (what it raises).
    Raises(String),
    /// Outside what is reproduced here (why).
    Refuse(String),
    /// The workbook cannot be read.
    Bad(String),
}

impl From<PropError> for StyleError {
    fn from(e: PropError) -> Self {
        match e {
            PropError::Raises(m) => StyleError::Raises(m),
            PropError::Bad(m) => StyleError::Bad(m),
        }
    }
}

impl From<ReadError> for StyleError {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Raises(m) => StyleError::Raises(m),
            ReadError::Refuse(m) => StyleError::Refuse(m),
        }
    }
}

/// A rectangle: zero-based (row, column) of its top-left and bottom-right.
type Rect = ((usize, usize), (usize, usize));

/// One `cfRule`.
struct Rule<'a> {
    kind: &'a str,
    operator: Option<&'a str>,
    dxf: Option<usize>,
    formulas: Vec<String>,
}

/// One `ConditionalFormatting` of openpyxl: its ranges (a set) and rules.
struct Block<'a> {
    ranges: Vec<Rect>,
    rules: Vec<Rule<'a>>,
}

const TYPES: &[&str] = &[
    "expression",
    "cellIs",
    "colorScale",
    "dataBar",
    "iconSet",
    "top10",
    "uniqueValues",
    "duplicateValues",
    "containsText",
    "notContainsText",
    "beginsWith",
    "endsWith",
    "containsBlanks",
    "notContainsBlanks",
    "containsErrors",
    "notContainsErrors",
    "timePeriod",
    "aboveAverage",
];

const OPERATORS: &[&str] = &[
    "lessThan",
    "lessThanOrEqual",
    "equal",
    "notEqual",
    "greaterThanOrEqual",
    "greaterThan",
    "between",
    "notBetween",
    "containsText",
    "notContains",
    "beginsWith",
    "endsWith",
];

/// The rule types whose first formula OSWorld evaluates per cell.
const FORMULA_TYPES: &[&str] = &[
    "expression",
    "containsText",
    "notContainsText",
    "endsWith",
    "beginsWith",
    "containsErrors",
    "notContainsErrors",
];

/// Python `int()` of an attribute, as openpyxl's `Integer` converts it.
fn py_int(s: &str) -> Option<i64> {
    let t = s.trim();
    let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| t.parse().ok())
        .flatten()
}

/// Why openpyxl cannot load a worksheet with these blocks (an unknown rule
/// type or operator, a bad integer, a `dxfId` past `dxfs_len`), or
/// `None`. `load_workbook` then fails as a whole.
pub(super) fn load_failure(sheet: Node<'_, '_>, dxfs_len: usize) -> Option<String> {
    for block in children(sheet, "conditionalFormatting") {
        for r in children(block, "cfRule") {
            if let Some(t) = r.attribute("type")
                && !TYPES.contains(&t)
            {
                return Some(format!("conditional format rule type {t:?}"));
            }
            if let Some(op) = r.attribute("operator")
                && !OPERATORS.contains(&op)
            {
                return Some(format!("conditional format operator {op:?}"));
            }
            for a in ["priority", "rank", "stdDev", "dxfId"] {
                if let Some(v) = r.attribute(a)
                    && py_int(v).is_none()
                {
                    return Some(format!("conditional format {a}={v:?} is not an integer"));
                }
            }
            if let Some(d) = r.attribute("dxfId").and_then(py_int)
                && d >= 0
                && d as usize >= dxfs_len
            {
                return Some(format!("dxfId {d} is past the {dxfs_len} dxfs"));
            }
        }
    }
    None
}

/// The sheet's blocks as openpyxl iterates them (see the module docs).
fn blocks<'a>(sheet: Node<'a, '_>) -> Result<Vec<Block<'a>>, StyleError> {
    let mut out: Vec<(Vec<Rect>, Block<'a>)> = Vec::new();
    for el in children(sheet, "conditionalFormatting") {
        let sqref = el.attribute("sqref").unwrap_or_default();
        let mut ranges: Vec<Rect> = Vec::new();
        let mut reversed = false;
        for part in sqref.split_whitespace() {
            let (a, b) = part.split_once(':').unwrap_or((part, part));
            let (Some(a), Some(b)) = (parse_cell(a), parse_cell(b)) else {
                return Err(StyleError::Refuse(format!(
                    "conditional format range {part:?}"
                )));
            };
            reversed |= a.0 > b.0 || a.1 > b.1;
            if !ranges.contains(&(a, b)) {
                ranges.push((a, b));
            }
        }
        if ranges.is_empty() {
            return Err(StyleError::Refuse(format!(
                "conditional format without a range ({sqref:?})"
            )));
        }
        // Rules without a type make openpyxl drop the block (TypeError),
        // as does a range written from its bottom-right corner.
        if reversed || children(el, "cfRule").any(|r| r.attribute("type").is_none()) {
            continue;
        }
        let mut rules = Vec::new();
        for r in children(el, "cfRule") {
            let dxf = match r.attribute("dxfId").and_then(py_int) {
                Some(d) if d < 0 => {
                    return Err(StyleError::Refuse(format!("negative dxfId {d}")));
                }
                Some(d) => Some(d as usize),
                None => None,
            };
            let mut formulas = Vec::new();
            for f in children(r, "formula") {
                match f.text() {
                    Some(t) if !t.is_empty() => formulas.push(t.to_owned()),
                    _ => {
                        return Err(StyleError::Refuse(
                            "an empty <formula> (None to openpyxl)".into(),
                        ));
                    }
                }
            }
            rules.push(Rule {
                kind: r.attribute("type").unwrap_or_default(),
                operator: r.attribute("operator"),
                dxf,
                formulas,
            });
        }
        let mut key = ranges.clone();
        key.sort_unstable();
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, b)) => b.rules.extend(rules),
            None => out.push((key, Block { ranges, rules })),
        }
    }
    Ok(out.into_iter().map(|(_, b)| b).collect())
}

/// What `is_active` is bound to.
#[derive(Clone, Copy)]
enum Pred {
    /// `condition(v, *arguments)`.
    Formula,
    /// `_process_xlsx_cf_operator(operator, v, references)`.
    CellIs,
}

/// The function-scope variables OSWorld's loop shares between rules.
#[derive(Default)]
struct State<'a> {
    is_active: Option<Pred>,
    condition: Option<Formula>,
    arguments: Vec<Vec<Option<Cv>>>,
    operator: Option<&'a str>,
    references: Vec<Const>,
}

/// The cell name `A1` of zero-based (row, column).
pub(super) fn coordinate((r, c): (usize, usize)) -> String {
    let mut letters = Vec::new();
    let mut n = c + 1;
    while n > 0 {
        letters.push(b'A' + ((n - 1) % 26) as u8);
        n = (n - 1) / 26;
    }
    letters.reverse();
    format!("{}{}", String::from_utf8_lossy(&letters), r + 1)
}

/// The values of an absolute reference's cells, row by row.
fn range_values(values: &SheetValues, r: &AbsRef) -> Result<Vec<Option<Cv>>, StyleError> {
    let &AbsRef::Range(a, b) = r else {
        return Err(StyleError::Raises(
            "ValueError: a single absolute cell in a conditional format formula (CellRange(\"A1:\"))"
                .into(),
        ));
    };
    if a.0 > b.0 || a.1 > b.1 {
        return Err(StyleError::Raises(
            "ValueError: an absolute range written from its bottom-right corner".into(),
        ));
    }
    if (b.0 - a.0 + 1) * (b.1 - a.1 + 1) > 100_000 {
        return Err(StyleError::Refuse(
            "an absolute range of more than 100000 cells".into(),
        ));
    }
    let mut out = Vec::new();
    for row in a.0..=b.0 {
        for col in a.1..=b.1 {
            out.push(values.get(&coordinate((row, col)))?);
        }
    }
    Ok(out)
}

/// Runs the pass over sheet `ss` (values `values`), writing active cells'
/// `props` into `styles` and every visited cell into `created`.
pub(super) fn apply(
    ss: &SheetStyles<'_, '_>,
    values: &SheetValues,
    props: &[String],
    created: &mut BTreeSet<(usize, usize)>,
    styles: &mut BTreeMap<(usize, usize), Vec<Value>>,
) -> Result<(), StyleError> {
    let dxfs: Vec<Node<'_, '_>> = ss
        .stylesheet()
        .and_then(|s| child(s, "dxfs"))
        .map(|d| children(d, "dxf").collect())
        .unwrap_or_default();
    let mut state = State::default();
    for block in blocks(ss.root())? {
        for rule in &block.rules {
            if !prepare(rule, values, &mut state)? {
                continue;
            }
            let active = test_cells(&block, rule, values, &state, created)?;
            let dxf = match rule.dxf {
                Some(i) => Some(
                    *dxfs
                        .get(i)
                        .ok_or_else(|| StyleError::Bad(format!("dxfId {i} is past the dxfs")))?,
                ),
                None => None,
            };
            for at in active {
                let vals = props
                    .iter()
                    .map(|p| dxf_prop(ss, at, dxf, p))
                    .collect::<Result<_, _>>()?;
                styles.insert(at, vals);
            }
        }
    }
    Ok(())
}

/// The formula loop and the type dispatch of one rule: rebinds the shared
/// state; false when OSWorld skips the rule (a cellIs reference that
/// cannot be computed).
fn prepare<'a>(
    rule: &Rule<'a>,
    values: &SheetValues,
    state: &mut State<'a>,
) -> Result<bool, StyleError> {
    let mut formulae = Vec::new();
    let mut argument_lists = Vec::new();
    for fml in &rule.formulas {
        let f = formula::parse(fml).map_err(StyleError::Refuse)?;
        let refs = formula::abs_refs(fml).map_err(StyleError::Refuse)?;
        state.arguments = refs
            .iter()
            .map(|r| range_values(values, r))
            .collect::<Result<_, _>>()?;
        formulae.push(f);
        argument_lists.push(state.arguments.clone());
    }
    if FORMULA_TYPES.contains(&rule.kind) {
        let (Some(first), Some(args)) = (rule.formulas.first(), argument_lists.first()) else {
            return Err(StyleError::Raises(format!(
                "IndexError: a {} rule without a formula",
                rule.kind
            )));
        };
        state.condition = Some(formula::compile(first).map_err(StyleError::Refuse)?);
        state.arguments.clone_from(args);
        state.is_active = Some(Pred::Formula);
    } else if rule.kind == "cellIs" {
        state.operator = rule.operator;
        let mut references = Vec::new();
        for f in &formulae {
            if !f.inputs().is_empty() {
                return Ok(false);
            }
        }
        for f in &formulae {
            match f.constant().map_err(StyleError::Refuse)? {
                Some(c) => references.push(c),
                None => return Ok(false),
            }
        }
        state.references = references;
        state.is_active = Some(Pred::CellIs);
    }
    Ok(true)
}

/// The cells of the block a rule makes active, in visiting order.
fn test_cells(
    block: &Block<'_>,
    rule: &Rule<'_>,
    values: &SheetValues,
    state: &State<'_>,
    created: &mut BTreeSet<(usize, usize)>,
) -> Result<Vec<(usize, usize)>, StyleError> {
    let cells = |r: &Rect| {
        let ((r0, c0), (r1, c1)) = *r;
        (r0..=r1).flat_map(move |row| (c0..=c1).map(move |col| (row, col)))
    };
    if block
        .ranges
        .iter()
        .map(|r| {
            let ((r0, c0), (r1, c1)) = *r;
            (r1 - r0 + 1) * (c1 - c0 + 1)
        })
        .sum::<usize>()
        > 1_000_000
    {
        return Err(StyleError::Refuse(
            "a conditional format over more than a million cells".into(),
        ));
    }
    if block.ranges.len() > 1 {
        // The ranges are visited in CPython's set order: only a pass that
        // never leaves a range early is order-free.
        let mut empty = 0;
        for r in &block.ranges {
            for at in cells(r) {
                if matches!(values.get(&coordinate(at)), Ok(None)) {
                    empty += 1;
                }
            }
        }
        if empty > 50 {
            return Err(StyleError::Refuse(
                "a multi-range conditional format with more than 50 empty cells (CPython's set order decides which are tested)".into(),
            ));
        }
    }
    let mut active = Vec::new();
    let mut nothings = 0;
    for r in &block.ranges {
        for at in cells(r) {
            created.insert(at);
            let Some(v) = values.get(&coordinate(at))? else {
                nothings += 1;
                if nothings > 50 {
                    break;
                }
                continue;
            };
            let sat = match state.is_active {
                None => false,
                Some(Pred::Formula) => {
                    let Some(condition) = &state.condition else {
                        return Err(StyleError::Bad(
                            "a formula predicate without condition".into(),
                        ));
                    };
                    let mut args = vec![Arg::Value(&v)];
                    args.extend(state.arguments.iter().map(|l| Arg::List(l)));
                    match condition.truthy(&args) {
                        Ok(b) => b,
                        Err(Stop::CallError) => false,
                        Err(Stop::Refuse(why)) => return Err(StyleError::Refuse(why)),
                    }
                }
                Some(Pred::CellIs) => cell_is(state.operator, &v, &state.references)?,
            };
            if sat {
                if rule.formulas.is_empty() {
                    return Err(StyleError::Raises(format!(
                        "IndexError: r.formula[0] of a {} rule without formula, active through the previous rule's test",
                        rule.kind
                    )));
                }
                active.push(at);
            }
        }
    }
    Ok(active)
}

/// `_process_xlsx_cf_operator(operator, v, references)` with Python's
/// comparisons (a type mismatch is false; `notEqual` true).
fn cell_is(op: Option<&str>, v: &Cv, refs: &[Const]) -> Result<bool, StyleError> {
    use std::cmp::Ordering;
    enum P<'s> {
        F(f64),
        S(&'s str),
    }
    fn p(c: &Const) -> P<'_> {
        match c {
            Const::Num(n) => P::F(*n),
            Const::Bool(b) => P::F(f64::from(u8::from(*b))),
            Const::Str(s) => P::S(s),
        }
    }
    // Ordering of v against r: None for a type mismatch (TypeError) or NaN.
    let ord = |r: &P<'_>| -> (bool, Option<Ordering>) {
        match (v, r) {
            (Cv::Num(x), P::F(y)) => (true, x.partial_cmp(y)),
            (Cv::Str(x), P::S(y)) => (true, Some(x.as_str().cmp(y))),
            _ => (false, None),
        }
    };
    let Some(op) = op else { return Ok(false) };
    if op == "between" || op == "notBetween" {
        let ps: Vec<P<'_>> = refs.iter().map(p).collect();
        let nums: Vec<f64> = ps
            .iter()
            .filter_map(|x| match x {
                P::F(f) => Some(*f),
                P::S(_) => None,
            })
            .collect();
        let strs: Vec<&str> = ps
            .iter()
            .filter_map(|x| match x {
                P::S(s) => Some(*s),
                P::F(_) => None,
            })
            .collect();
        if ps.is_empty() || (!nums.is_empty() && !strs.is_empty()) {
            return Ok(false); // min([]) / min of str and number raise, caught
        }
        if nums.iter().any(|x| x.is_nan()) {
            return Err(StyleError::Refuse("a NaN bound of between".into()));
        }
        let (lo, hi) = if nums.is_empty() {
            let (mut lo, mut hi) = (strs[0], strs[0]);
            for s in &strs {
                lo = lo.min(s);
                hi = hi.max(s);
            }
            (P::S(lo), P::S(hi))
        } else {
            (
                P::F(nums.iter().copied().fold(f64::INFINITY, f64::min)),
                P::F(nums.iter().copied().fold(f64::NEG_INFINITY, f64::max)),
            )
        };
        let (ok_lo, o_lo) = ord(&lo);
        let (_, o_hi) = ord(&hi);
        if !ok_lo {
            return Ok(false);
        }
        return Ok(if op == "between" {
            matches!(o_lo, Some(Ordering::Greater | Ordering::Equal))
                && matches!(o_hi, Some(Ordering::Less | Ordering::Equal))
        } else {
            o_lo == Some(Ordering::Less) || o_hi == Some(Ordering::Greater)
        });
    }
    let Some(r) = refs.first() else {
        return Ok(false);
    };
    let (same, o) = ord(&p(r));
    Ok(match op {
        "equal" => o == Some(Ordering::Equal),
        "notEqual" => !same || o != Some(Ordering::Equal),
        _ if !same => false,
        "lessThan" => o == Some(Ordering::Less),
        "lessThanOrEqual" => matches!(o, Some(Ordering::Less | Ordering::Equal)),
        "greaterThan" => o == Some(Ordering::Greater),
        "greaterThanOrEqual" => matches!(o, Some(Ordering::Greater | Ordering::Equal)),
        _ => false, // an operator OSWorld does not know: caught, false
    })
}

/// `_read_cell_style(prop, cell, dxf)`: the dxf's font, fill (its
/// `bgColor`) and number format where it has them, raising where openpyxl's
/// `None` has no attribute; the cell's own values without a dxf.
fn dxf_prop(
    ss: &SheetStyles<'_, '_>,
    at: (usize, usize),
    dxf: Option<Node<'_, '_>>,
    prop: &str,
) -> Result<Value, StyleError> {
    if !super::cellstyle::PROPS.contains(&prop) {
        return Err(StyleError::Raises(format!(
            "NotImplementedError: Unsupported Style: {prop}"
        )));
    }
    let Some(d) = dxf else {
        return Ok(ss.prop(at, prop)?);
    };
    let (has_value, numeric) = ss.value_kind(at).map_err(StyleError::Bad)?;
    let fill = child(d, "fill").and_then(|f| f.children().find(Node::is_element));
    Ok(match prop {
        "merge" | "hyperlink" => ss.prop(at, prop)?,
        "number_format" if has_value && numeric => match child(d, "numFmt") {
            Some(n) => n
                .attribute("formatCode")
                .map(|c| Value::String(c.to_owned()))
                .ok_or_else(|| StyleError::Refuse("a dxf numFmt without formatCode".into()))?,
            None => {
                return Err(StyleError::Raises(
                    "AttributeError: number_format of a dxf without numFmt".into(),
                ));
            }
        },
        "number_format" => Value::Null,
        "fill_type" => fill.map_or(Value::Null, |f| {
            Value::String(f.tag_name().name().to_owned())
        }),
        "bgcolor" | "fgcolor" => match fill {
            Some(p) if p.tag_name().name() == "patternFill" => {
                child(p, "bgColor").map_or(Value::String("00000000".into()), color_rgb)
            }
            _ => Value::Null,
        },
        _ if !has_value => Value::Null,
        _ => match child(d, "font") {
            Some(font) => font_prop(Some(font), prop, "the dxf's font")?,
            None => {
                return Err(StyleError::Raises(format!(
                    "AttributeError: {prop} of a dxf without a font (None.font)"
                )));
            }
        },
    })
}
