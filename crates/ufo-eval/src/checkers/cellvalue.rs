//! OSWorld's `read_cell_value(path, sheet, coordinate)` for every cell of
//! one sheet at once: the part `xl/worksheets/sheet{sheetId}.xml` (by the
//! sheet's `sheetId`, not its relationship), the first `row > c[r=…]`,
//! converted as xmltodict hands it over (text stripped): numbers as
//! floats, shared strings (all `<t>` of an `<si>` joined), formula string
//! results, inline strings, error texts; `None` otherwise. Where OSWorld's
//! function raises (an empty `<v>` of a number cell, a shared-string index
//! past the table), the read raises; shapes xmltodict turns into dicts or
//! lists (attributes on `<t>`, repeated elements) are refused.

use std::collections::HashMap;
use std::path::Path;

use roxmltree::{Document, Node};

use super::cellstyle::{child, children};
use super::docx::zip_part;
use super::formula::Cv;

const S: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/// Why a read gave no value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum ReadError {
    /// OSWorld's function raises (the message says what).
    Raises(String),
    /// A shape whose Python value is not reproduced.
    Refuse(String),
}

/// One `<c>` as read: its value, or what reading it does.
type Read = Result<Option<Cv>, ReadError>;

/// The values `read_cell_value` returns for one sheet, by coordinate.
pub(super) struct SheetValues {
    cells: HashMap<String, Read>,
}

impl SheetValues {
    /// What `read_cell_value` returns for `coord` (`B3`).
    pub(super) fn get(&self, coord: &str) -> Read {
        self.cells.get(coord).cloned().unwrap_or(Ok(None))
    }
}

/// Reads sheet `sheet` of `book` as `read_cell_value` does; a sheet or
/// part it does not find reads `None` everywhere.
pub(super) fn load(book: &Path, sheet: &str) -> Result<SheetValues, String> {
    let none = || SheetValues {
        cells: HashMap::new(),
    };
    let Ok(file) = std::fs::File::open(book) else {
        return Ok(none());
    };
    let Ok(mut zip) = zip::ZipArchive::new(file) else {
        return Ok(none());
    };
    let strings = zip_part(&mut zip, "xl/sharedStrings.xml")
        .ok()
        .flatten()
        .and_then(|x| shared_strings(&x));
    let Some(wb) = zip_part(&mut zip, "xl/workbook.xml").ok().flatten() else {
        return Ok(none());
    };
    let Ok(wb) = Document::parse(&wb) else {
        return Ok(none());
    };
    // `{name: sheetId}`: the last sheet of a name wins.
    let id = wb
        .descendants()
        .filter(|n| {
            n.has_tag_name((S, "sheet"))
                && n.parent().is_some_and(|p| p.has_tag_name((S, "sheets")))
        })
        .rfind(|n| n.attribute("name") == Some(sheet))
        .map(|n| n.attribute("sheetId").unwrap_or("None").to_owned());
    let Some(id) = id else {
        return Ok(none());
    };
    let Some(xml) = zip_part(&mut zip, &format!("xl/worksheets/sheet{id}.xml"))
        .ok()
        .flatten()
    else {
        return Ok(none());
    };
    let Ok(doc) = Document::parse(&xml) else {
        return Ok(none());
    };
    let mut cells = HashMap::new();
    for c in doc.descendants().filter(|n| {
        n.has_tag_name((S, "c")) && n.parent().is_some_and(|p| p.has_tag_name((S, "row")))
    }) {
        if let Some(r) = c.attribute("r")
            && !cells.contains_key(r)
        {
            cells.insert(r.to_owned(), convert(c, strings.as_deref()));
        }
    }
    Ok(SheetValues { cells })
}

/// The shared-string table as OSWorld builds it; `None` when building it
/// fails (a `<t>` without text), which OSWorld turns into an empty table.
fn shared_strings(xml: &str) -> Option<Vec<String>> {
    let doc = Document::parse(xml).ok()?;
    let root = doc.root_element();
    if !root.has_tag_name((S, "sst")) {
        return Some(Vec::new());
    }
    children(root, "si")
        .map(|si| {
            si.descendants()
                .filter(|n| n.has_tag_name((S, "t")))
                .map(|t| t.text())
                .collect::<Option<String>>()
        })
        .collect()
}

/// Python's `str.strip()` (xmltodict strips text), `None` when empty.
fn stripped(n: Node<'_, '_>) -> Option<String> {
    let text: String = n
        .children()
        .filter(Node::is_text)
        .filter_map(|t| t.text())
        .collect();
    let t = text.trim_matches(|c: char| c.is_whitespace() || ('\x1c'..='\x1f').contains(&c));
    (!t.is_empty()).then(|| t.to_owned())
}

/// The one `name` child as xmltodict gives it: `Ok(None)` when absent;
/// refused when repeated or carrying attributes (a list or a dict).
fn only<'a, 'i>(c: Node<'a, 'i>, name: &'static str) -> Result<Option<Node<'a, 'i>>, ReadError> {
    let mut it = children(c, name);
    let first = it.next();
    if it.next().is_some() {
        return Err(ReadError::Refuse(format!(
            "a cell with two <{name}> elements"
        )));
    }
    if first.is_some_and(|n| n.attributes().len() > 0 || n.children().any(|k| k.is_element())) {
        return Err(ReadError::Refuse(format!(
            "a <{name}> with attributes or children (a dict to xmltodict)"
        )));
    }
    Ok(first)
}

fn convert(c: Node<'_, '_>, strings: Option<&[String]>) -> Read {
    let t = c.attribute("t");
    match t {
        None | Some("n") => {
            let Some(v) = only(c, "v")? else {
                return Ok(None);
            };
            let Some(text) = stripped(v) else {
                return Err(ReadError::Raises(
                    "float(None): a number cell with an empty <v>".into(),
                ));
            };
            match super::formula::py_float(&text) {
                Ok(Some(x)) => Ok(Some(Cv::Num(x))),
                Ok(None) => Ok(None),
                Err(_) => Err(ReadError::Refuse(format!("a number cell holding {text:?}"))),
            }
        }
        Some("s") => {
            let Some(v) = only(c, "v")? else {
                return Ok(None);
            };
            let Some(text) = stripped(v) else {
                return Err(ReadError::Raises(
                    "int(None): a shared-string cell with an empty <v>".into(),
                ));
            };
            if !text.bytes().all(|b| b.is_ascii_digit()) {
                if text.starts_with(['+', '-']) || text.contains('_') {
                    return Err(ReadError::Refuse(format!("shared-string index {text:?}")));
                }
                return Ok(None);
            }
            let i: usize = text.parse().unwrap_or(usize::MAX);
            match strings.unwrap_or_default().get(i) {
                Some(s) => Ok(Some(Cv::Str(s.clone()))),
                None => Err(ReadError::Raises(format!(
                    "IndexError: shared string {i} is not in the table OSWorld reads"
                ))),
            }
        }
        Some("str" | "e") => Ok(only(c, "v")?.and_then(stripped).map(Cv::Str)),
        Some("inlineStr") => {
            let Some(is) = children(c, "is").next() else {
                return Ok(None);
            };
            if children(c, "is").nth(1).is_some() || is.attributes().len() > 0 {
                return Err(ReadError::Refuse("an unusual inline string".into()));
            }
            let has_t = child(is, "t").is_some();
            let has_content = is.children().any(|k| k.is_element()) || stripped(is).is_some();
            if !has_content {
                return Err(ReadError::Raises(
                    "None['t']: an empty inline string".into(),
                ));
            }
            if !has_t {
                return Ok(None);
            }
            Ok(only(is, "t")?.and_then(stripped).map(Cv::Str))
        }
        Some(_) => Ok(None),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn cell(xml: &str, strings: Option<&[String]>) -> Read {
        let text = format!("<row xmlns=\"{S}\"><c r=\"A1\" {xml}</row>");
        let doc = Document::parse(&text).unwrap();
        let c = doc.root_element().first_element_child().unwrap();
        convert(c, strings)
    }

    #[test]
    fn conversions() {
        let sst = vec!["a".to_owned(), "b c".to_owned()];
        let s = Some(sst.as_slice());
        assert_eq!(cell("><v>5</v></c>", s), Ok(Some(Cv::Num(5.0))));
        assert_eq!(cell("><v> 1E3 </v></c>", s), Ok(Some(Cv::Num(1000.0))));
        assert_eq!(cell("><f>A1</f></c>", s), Ok(None));
        assert!(matches!(cell("><v></v></c>", s), Err(ReadError::Raises(_))));
        assert_eq!(cell("><v>abc</v></c>", s), Ok(None));
        assert_eq!(
            cell("t=\"s\"><v>1</v></c>", s),
            Ok(Some(Cv::Str("b c".into())))
        );
        assert!(matches!(
            cell("t=\"s\"><v>2</v></c>", s),
            Err(ReadError::Raises(_))
        ));
        assert!(matches!(
            cell("t=\"s\"><v>0</v></c>", None),
            Err(ReadError::Raises(_))
        ));
        assert_eq!(
            cell("t=\"str\"><f>x</f><v> hi </v></c>", s),
            Ok(Some(Cv::Str("hi".into())))
        );
        assert_eq!(cell("t=\"str\"><v></v></c>", s), Ok(None));
        assert_eq!(
            cell("t=\"e\"><v>#DIV/0!</v></c>", s),
            Ok(Some(Cv::Str("#DIV/0!".into())))
        );
        assert_eq!(cell("t=\"b\"><v>1</v></c>", s), Ok(None));
        assert_eq!(
            cell("t=\"inlineStr\"><is><t>x</t></is></c>", s),
            Ok(Some(Cv::Str("x".into())))
        );
        assert_eq!(
            cell("t=\"inlineStr\"><is><r><t>x</t></r></is></c>", s),
            Ok(None)
        );
        assert!(matches!(
            cell(
                "t=\"inlineStr\"><is><t xml:space=\"preserve\">x</t></is></c>",
                s
            ),
            Err(ReadError::Refuse(_))
        ));
        assert_eq!(
            shared_strings(&format!(
                "<sst xmlns=\"{S}\"><si><r><t>a</t></r><r><t>b</t></r></si></sst>"
            )),
            Some(vec!["ab".to_owned()])
        );
        assert_eq!(
            shared_strings(&format!(
                "<sst xmlns=\"{S}\"><si><t>a</t></si><si><t/></si></sst>"
            )),
            None
        );
    }
}
