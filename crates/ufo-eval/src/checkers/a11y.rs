//! `check_accessibility_tree` (OSWorld `general.py`).

use serde_json::{Map, Value};

use super::selector::SelectorList;
use super::similarity::indel_ratio;
use super::{CheckError, Cx};

/// One parsed rule.
struct Rule {
    selectors: SelectorList,
    /// Expected text and whether it must match exactly.
    text: Option<(String, bool)>,
}

fn parse_rule(cx: &Cx<'_>, r: &Map<String, Value>) -> Result<Rule, CheckError> {
    if r.contains_key("xpath") {
        return Err(cx.bad("xpath rules are not supported; use \"selectors\""));
    }
    let list = r
        .get("selectors")
        .ok_or_else(|| cx.bad("each rule needs \"selectors\" (a list of CSS selectors)"))?;
    let parts: Vec<&str> = match list {
        Value::Array(items) => items
            .iter()
            .map(|s| {
                s.as_str()
                    .ok_or_else(|| cx.bad("selectors must be strings"))
            })
            .collect::<Result<_, _>>()?,
        Value::String(s) => vec![s.as_str()],
        _ => return Err(cx.bad("selectors must be a list of strings")),
    };
    if parts.is_empty() {
        return Err(cx.bad("selectors is empty"));
    }
    let joined = parts.join(", ");
    let selectors =
        SelectorList::parse(&joined).map_err(|e| cx.bad(format!("selector {joined:?}: {e}")))?;
    let text = match r.get("text") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => {
            let exact = match r.get("exact") {
                None | Some(Value::Null) => true,
                Some(Value::Bool(b)) => *b,
                Some(_) => return Err(cx.bad("exact must be a boolean")),
            };
            Some((t.clone(), exact))
        }
        Some(_) => return Err(cx.bad("text must be a string")),
    };
    Ok(Rule { selectors, text })
}

/// `check_accessibility_tree`: the result is an accessibility tree as XML and
/// `expected` the rules, a list of `{selectors, text?, exact?}` (one object
/// is taken as a list of one). Each rule's selectors (joined with `", "`)
/// must select at least one element, else the score is 0. With `text`, the
/// rule scores the best over the selected elements of: equality (`exact`,
/// the default) or rapidfuzz-style ratio with the element's text. The score
/// is the product over the rules.
///
/// An element's text is its own text before its first child element, as in
/// lxml; where it has none, its `name` attribute stands in (an extension:
/// OSWorld would see `None` and score 0).
pub(super) fn check_accessibility_tree(cx: &Cx<'_>) -> Result<f64, CheckError> {
    let rules = cx.rules()?;
    let rules: Vec<&Map<String, Value>> = match rules {
        Value::Array(items) => items
            .iter()
            .map(|r| {
                r.as_object()
                    .ok_or_else(|| cx.bad("each rule must be an object"))
            })
            .collect::<Result<_, _>>()?,
        Value::Object(one) => vec![one],
        _ => return Err(cx.bad("rules must be a list of rule objects")),
    };
    let rules = rules
        .into_iter()
        .map(|r| parse_rule(cx, r))
        .collect::<Result<Vec<_>, _>>()?;
    let Some(xml) = cx.result_text() else {
        return Ok(0.0);
    };
    let Ok(doc) = roxmltree::Document::parse(&xml) else {
        return Ok(0.0);
    };
    let mut total = 1.0;
    for rule in &rules {
        let found = rule.selectors.select(doc.root());
        if found.is_empty() {
            return Ok(0.0);
        }
        let Some((want, exact)) = &rule.text else {
            continue;
        };
        let score = found
            .iter()
            .map(|n| {
                let own = n
                    .text()
                    .filter(|t| !t.is_empty())
                    .or_else(|| n.attribute("name"));
                match own {
                    Some(t) if *exact => f64::from(u8::from(t == want)),
                    Some(t) => indel_ratio(t, want),
                    None => 0.0,
                }
            })
            .fold(0.0, f64::max);
        total *= score;
    }
    Ok(total)
}
