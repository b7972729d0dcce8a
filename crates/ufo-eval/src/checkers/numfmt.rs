//! A cell's number format as openpyxl reports it (`cell.number_format`),
//! and whether openpyxl takes its style for a date (a number under such a
//! style is read as a `datetime`, data type `d`).
//!
//! openpyxl rebases the workbook's custom formats (`numFmts`) as it reads
//! the styles: walking `cellXfs` in order, a custom code equal to a
//! built-in one takes the built-in id, any other is added (once) to a list
//! and takes id 164 + its position; an id below 164 without a built-in
//! code reads as `General`, an id from 164 not in that list has no code.

use roxmltree::Node;

const S: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/// openpyxl's `BUILTIN_FORMATS`.
const BUILTIN: &[(u32, &str)] = &[
    (0, "General"),
    (1, "0"),
    (2, "0.00"),
    (3, "#,##0"),
    (4, "#,##0.00"),
    (5, "\"$\"#,##0_);(\"$\"#,##0)"),
    (6, "\"$\"#,##0_);[Red](\"$\"#,##0)"),
    (7, "\"$\"#,##0.00_);(\"$\"#,##0.00)"),
    (8, "\"$\"#,##0.00_);[Red](\"$\"#,##0.00)"),
    (9, "0%"),
    (10, "0.00%"),
    (11, "0.00E+00"),
    (12, "# ?/?"),
    (13, "# ??/??"),
    (14, "mm-dd-yy"),
    (15, "d-mmm-yy"),
    (16, "d-mmm"),
    (17, "mmm-yy"),
    (18, "h:mm AM/PM"),
    (19, "h:mm:ss AM/PM"),
    (20, "h:mm"),
    (21, "h:mm:ss"),
    (22, "m/d/yy h:mm"),
    (37, "#,##0_);(#,##0)"),
    (38, "#,##0_);[Red](#,##0)"),
    (39, "#,##0.00_);(#,##0.00)"),
    (40, "#,##0.00_);[Red](#,##0.00)"),
    (41, r#"_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)"#),
    (42, r#"_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)"#),
    (43, r#"_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)"#),
    (
        44,
        r#"_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)"#,
    ),
    (45, "mm:ss"),
    (46, "[h]:mm:ss"),
    (47, "mmss.0"),
    (48, "##0.0E+0"),
    (49, "@"),
];

fn builtin(id: u32) -> Option<&'static str> {
    BUILTIN.iter().find(|(i, _)| *i == id).map(|(_, c)| *c)
}

fn builtin_id(code: &str) -> Option<u32> {
    BUILTIN.iter().find(|(_, c)| *c == code).map(|(i, _)| *i)
}

/// openpyxl's `is_date_format`: the first section of the code, without
/// quoted text and bracketed parts other than `[h]`, `[hh]`, `[m]`,
/// `[mm]`, `[s]`, `[ss]`, holds one of `dmhysDMHYS` not preceded by `_`
/// or `\`.
pub(super) fn is_date_format(code: &str) -> bool {
    let first: Vec<char> = code.split(';').next().unwrap_or("").chars().collect();
    let mut kept = Vec::with_capacity(first.len());
    let mut i = 0;
    while i < first.len() {
        let c = first[i];
        let close = |from: usize, ch: char| first[from..].iter().position(|&x| x == ch);
        if c == '"' {
            if let Some(n) = close(i + 1, '"') {
                i += n + 2;
                continue;
            }
        } else if c == '[' {
            let rest: String = first[i + 1..].iter().collect();
            let elapsed = ["h]", "hh]", "m]", "mm]", "s]", "ss]"]
                .iter()
                .any(|p| rest.starts_with(p));
            if !elapsed && let Some(n) = close(i + 1, ']') {
                i += n + 2;
                continue;
            }
        }
        kept.push(c);
        i += 1;
    }
    kept.iter()
        .enumerate()
        .any(|(j, c)| "dmhysDMHYS".contains(*c) && (j == 0 || !matches!(kept[j - 1], '_' | '\\')))
}

fn child<'a, 'i>(n: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    n.children().find(|c| c.has_tag_name((S, name)))
}

/// The number format code of cell style `xf` (an index into `cellXfs` of
/// the styles part `styles`), and whether openpyxl reads numbers under it
/// as dates. A style index beyond `cellXfs` reads as `General`.
pub(super) fn of_xf(styles: Node<'_, '_>, xf: usize) -> (Option<String>, bool) {
    let mut custom: Vec<(u32, String)> = Vec::new();
    if let Some(list) = child(styles, "numFmts") {
        for f in list.children().filter(|c| c.has_tag_name((S, "numFmt"))) {
            let (Some(id), Some(code)) = (
                f.attribute("numFmtId").and_then(|v| v.parse().ok()),
                f.attribute("formatCode"),
            ) else {
                continue;
            };
            // A dict: the last entry of an id wins.
            custom.retain(|(i, _)| *i != id);
            custom.push((id, code.to_owned()));
        }
    }
    let mut added: Vec<String> = Vec::new();
    // The style's rebased id and whether its code is a date's; the list
    // of added codes may still grow after it.
    let mut found: Option<(u32, bool)> = None;
    let xfs = child(styles, "cellXfs");
    let items = xfs
        .into_iter()
        .flat_map(|x| x.children().filter(|c| c.has_tag_name((S, "xf"))));
    for (idx, x) in items.enumerate() {
        let id: u32 = x
            .attribute("numFmtId")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let (id, code) = match custom.iter().find(|(i, _)| *i == id) {
            Some((_, code)) => match builtin_id(code) {
                Some(b) => (b, Some(code.as_str())),
                None => {
                    let pos = match added.iter().position(|c| c == code) {
                        Some(p) => p,
                        None => {
                            added.push(code.clone());
                            added.len() - 1
                        }
                    };
                    (164 + pos as u32, Some(code.as_str()))
                }
            },
            None => (id, builtin(id)),
        };
        if idx == xf {
            found = Some((id, code.is_some_and(is_date_format)));
        }
    }
    let (id, date) = found.unwrap_or((0, false));
    let shown = if id < 164 {
        Some(builtin(id).unwrap_or("General").to_owned())
    } else {
        added.get((id - 164) as usize).cloned()
    };
    (shown, date)
}

#[cfg(test)]
mod tests {
    use super::is_date_format;

    #[test]
    fn dates_as_openpyxl_sees_them() {
        assert!(is_date_format("yyyy-mm-dd"));
        assert!(is_date_format("[h]:mm:ss"));
        assert!(is_date_format("[$-409]d-mmm"));
        assert!(!is_date_format("0.00"));
        assert!(!is_date_format("\"days\" 0"));
        assert!(!is_date_format("[Red]0.00"));
        assert!(!is_date_format("0_)"));
        assert!(!is_date_format("0.00;dd"));
        assert!(!is_date_format("General"));
    }
}
