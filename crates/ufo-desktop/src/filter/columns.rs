//! Which column a table's cell is in: the name of the column header above
//! it. A row of a file list or a process table is otherwise a run of bare
//! values ("2 bytes", "Today"); a person reads each by its column.

use std::collections::HashMap;
use ufo_core::{ControlType, UiTree};

/// The named column headers of each table of a tree, read once per
/// labelling: table node index → `(left, right, name)` of each header.
pub(super) struct Columns {
    headers: HashMap<usize, Vec<(i32, i32, String)>>,
}

impl Columns {
    /// The named, placed column headers of `tree`'s tables (row headers are
    /// left out: they name a row, not the cells below them).
    pub(super) fn of(tree: &UiTree) -> Self {
        let mut headers: HashMap<usize, Vec<(i32, i32, String)>> = HashMap::new();
        for (i, n) in tree.nodes.iter().enumerate() {
            if n.control_type != ControlType::HeaderItem || n.role.contains("row") {
                continue;
            }
            let name = n.name.trim();
            let Some(r) = n.rect.filter(|r| r.width > 0 && !name.is_empty()) else {
                continue;
            };
            if let Some(t) = table_of(tree, i) {
                headers
                    .entry(t)
                    .or_default()
                    .push((r.x, r.x + r.width, name.to_owned()));
            }
        }
        Self { headers }
    }

    /// The column of cell `i` (a `DataItem`): the name of the header of its
    /// table whose horizontal span holds the cell's centre. `None` for any
    /// other node, a cell of a table without named headers, or a cell whose
    /// name is its column's (a header repeated as a cell).
    pub(super) fn of_cell(&self, tree: &UiTree, i: usize) -> Option<String> {
        if self.headers.is_empty() {
            return None;
        }
        let n = tree.nodes.get(i)?;
        if n.control_type != ControlType::DataItem {
            return None;
        }
        let r = n.rect?;
        let cx = r.x + r.width / 2;
        let headers = self.headers.get(&table_of(tree, i)?)?;
        let (_, _, name) = headers.iter().find(|(l, rt, _)| (*l..*rt).contains(&cx))?;
        (name.as_str() != n.name.trim()).then(|| name.clone())
    }
}

/// The nearest `Table` ancestor of node `i` (bounded by the tree's size: a
/// malformed parent cycle ends the walk).
fn table_of(tree: &UiTree, i: usize) -> Option<usize> {
    let mut cur = tree.nodes.get(i)?.parent;
    for _ in 0..tree.nodes.len() {
        let p = cur?;
        let node = tree.nodes.get(p)?;
        if node.control_type == ControlType::Table {
            return Some(p);
        }
        cur = node.parent;
    }
    None
}
