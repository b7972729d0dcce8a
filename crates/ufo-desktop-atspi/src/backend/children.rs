//! Reading a node's children without ever enumerating a huge container.
//!
//! A LibreOffice Calc sheet is a table with `manages-descendants` and 2³¹−1
//! children; asking for all of them makes the application create an accessible
//! object per cell until it runs out of memory. The rule here protects every
//! application: a container with more children than the per-container budget,
//! or one that manages its descendants (unless it says it has a few), is read
//! by what is visible — for a table the cells under its visible area (found by
//! hit-testing its corners), otherwise its first children up to the budget.

use super::objref::ObjRef;
use super::{AtspiBackend, call};
use atspi::proxy::accessible::AccessibleProxy;
use atspi::{CoordType, Interface, InterfaceSet, State, StateSet};
use futures::future::join_all;
use ufo_desktop::DesktopError;

type Result<T, E = DesktopError> = std::result::Result<T, E>;

/// At most this many children of a container that manages its descendants
/// and is no table are read (its first ones).
const SMALL_MANAGED: i32 = 100;

/// A container that manages its descendants and says it has at most this
/// many children is enumerated in one call: cheaper than finding its visible
/// ones (zenity's four-cell list: 1 call instead of 22 hit tests and 6
/// extents; LibreOffice Writer's one-paragraph page: 1 instead of 160), and
/// its rows off screen say they are not showing.
const SHORT_MANAGED: i32 = 32;

/// Most probe heights down one list read by its visible rows (two probes
/// each).
const MAX_SCAN_STEPS: i32 = 80;

/// How far apart the first probes down a list are (pixels), and the least
/// pitch of the next ones.
const SCAN_STRIDE: i32 = 8;

/// How many probe heights measure a list's rows before the rest is probed.
const SAMPLE_PROBES: i32 = 6;

/// How many probe heights below a table's top edge look for its first row
/// under its column headers (8 px apart: 64 px of headers).
const HEADER_PROBES: i32 = 8;

/// At most this many visible columns are read of a table.
const MAX_TABLE_COLUMNS: i32 = 26;

/// What is known of a node's child count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Count {
    /// The application said (a cache's count, or a call's).
    Known(i32),
    /// Not known: asked before the children are.
    Unknown,
    /// Not needed: the node is a widget container, whose children are asked
    /// for without counting them (see `read.rs`).
    Uncounted,
}

impl Count {
    /// `count`, else unknown or not needed.
    pub(crate) fn of(count: Option<i32>, uncounted: bool) -> Self {
        match (count, uncounted) {
            (Some(n), _) => Count::Known(n),
            (None, true) => Count::Uncounted,
            (None, false) => Count::Unknown,
        }
    }
}

/// The children read of one node.
#[derive(Debug, Default)]
pub(crate) struct Children {
    /// Each child read, in order.
    pub(crate) refs: Vec<ObjRef>,
    /// Set when only part of the children were read, saying which part.
    pub(crate) note: Option<String>,
    /// The children are a table's cells under its visible area.
    pub(crate) cells: bool,
}

/// Object references as the application on `bus` answered them (see
/// [`ObjRef::answered`]), without null references.
fn refs<'a>(bus: &str, items: impl IntoIterator<Item = &'a atspi::ObjectRefOwned>) -> Vec<ObjRef> {
    items
        .into_iter()
        .map(|c| ObjRef::answered(bus, c))
        .filter(|c| !c.is_null())
        .collect()
}

impl AtspiBackend {
    /// The children of `h` within `limit` (see the module docs). `count` is the
    /// child count the application reported, `None` when it must be asked.
    pub(crate) async fn read_children(
        &self,
        h: &ObjRef,
        acc: &AccessibleProxy<'static>,
        limit: usize,
        states: StateSet,
        ifaces: InterfaceSet,
        count: Count,
    ) -> Result<Children> {
        let bus = h.bus();
        let limit_i = i32::try_from(limit).unwrap_or(i32::MAX);
        let managed = states.contains(State::ManagesDescendants);
        // A widget container is not counted first (see `read.rs`): all of
        // its children are asked for, and the first `limit` kept.
        if count == Count::Uncounted && !managed {
            let kids = self.unmanaged_children(h, acc).await?;
            let mut refs = refs(bus, &kids);
            let n = refs.len();
            refs.truncate(limit);
            return Ok(Children {
                note: (n > limit).then(|| format!("{n} children: the first {limit} were read")),
                refs,
                ..Children::default()
            });
        }
        // No trustworthy count (a cache's, for a managed container): ask.
        let count = match count {
            Count::Known(n) => n,
            Count::Unknown | Count::Uncounted => self.child_count(h, acc).await.unwrap_or(0),
        }
        .max(0);
        // A leaf costs no call: the count said so (a cache's counts are
        // computed when it is read; GetChildren would cost the application
        // one more request per leaf, which is half a window's nodes).
        if count == 0 && !managed {
            return Ok(Children::default());
        }
        // A container that manages its descendants is enumerated only when
        // it says it is short: its reported count may be 0 or 2³¹−1 and
        // GetChildren makes the application materialise every child.
        let enumerate = match managed {
            true => (1..=SHORT_MANAGED.min(limit_i)).contains(&count),
            false => count <= limit_i,
        };
        if enumerate {
            let kids = match managed {
                true => call(h, "GetChildren", acc.get_children()).await?,
                false => self.unmanaged_children(h, acc).await?,
            };
            return Ok(Children {
                refs: refs(bus, &kids),
                ..Children::default()
            });
        }
        tracing::debug!(%h, count, managed, "large container");
        if ifaces.contains(Interface::Table) && ifaces.contains(Interface::Component) {
            match self.visible_cells(h, limit_i).await {
                Ok(Some(c)) => return Ok(c),
                Ok(None) => {}
                Err(e @ DesktopError::StaleElement { .. }) => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "visible cells unreadable; reading the first children")
                }
            }
        }
        // A list that manages its descendants (GTK's list boxes and icon
        // views) is read by what is on screen: the children hit down its
        // visible area, one row after another.
        if managed && ifaces.contains(Interface::Component) && states.contains(State::Showing) {
            match self.visible_rows(h, limit_i).await {
                Ok(Some(c)) => return Ok(c),
                Ok(None) => {}
                Err(e @ DesktopError::StaleElement { .. }) => return Err(e),
                Err(e) => {
                    tracing::debug!(error = %e, "visible rows unreadable; reading the first children")
                }
            }
        }
        // The first children up to the budget, one call each, all in flight.
        let n = count
            .min(limit_i)
            .min(if managed { SMALL_MANAGED } else { limit_i });
        let got =
            join_all((0..n).map(|i| call(h, "GetChildAtIndex", acc.get_child_at_index(i)))).await;
        let kids: Vec<atspi::ObjectRefOwned> = got.into_iter().filter_map(Result::ok).collect();
        Ok(Children {
            refs: refs(bus, &kids),
            note: (n < count).then(|| format!("{count} children: the first {n} were read")),
            cells: false,
        })
    }

    /// The cells of table `h` under its visible area: the rows and columns from
    /// the cell at its top-left corner to the one at its bottom-right corner,
    /// at most `limit` cells. `None` when the corners hit no cell.
    async fn visible_cells(&self, h: &ObjRef, limit: i32) -> Result<Option<Children>> {
        let (bus, own) = (h.bus(), h.path());
        let comp = self.component(h).await?;
        let table = self.table(h).await?;
        let (x, y, w, hgt) = call(h, "GetExtents", comp.get_extents(CoordType::Screen)).await?;
        if w <= 2 || hgt <= 2 {
            return Ok(None);
        }
        // Its four corners: the bottom-right one may fall below a short
        // table's last row or right of its last column, so the bottom-left
        // and top-right corners say where the rows and the columns end.
        let at = |px: i32, py: i32| {
            call(
                h,
                "GetAccessibleAtPoint",
                comp.get_accessible_at_point(px, py, CoordType::Screen),
            )
        };
        let (right, bottom) = (x + w - 2, y + hgt - 2);
        let (top_left, bottom_right, bottom_left, top_right, n_rows, n_cols) = futures::join!(
            at(x + 1, y + 1),
            at(right, bottom),
            at(x + 1, bottom),
            at(right, y + 1),
            call(h, "NRows", table.n_rows()),
            call(h, "NColumns", table.n_columns()),
        );
        let cell_at = |o: atspi::ObjectRefOwned| {
            let cell = ObjRef::answered(bus, &o);
            (!cell.is_null() && cell.path() != own).then_some(cell)
        };
        // A tree view's column headers sit along its top edge, where no
        // cell is (zenity's list lost its first column): the first cell
        // below them is looked for down each top corner.
        let is_cell = |o: &Result<atspi::ObjectRefOwned>| {
            o.as_ref().is_ok_and(|o| cell_at(o.clone()).is_some())
        };
        let below_headers = |px: i32, hit: Result<atspi::ObjectRefOwned>| async move {
            if is_cell(&hit) {
                return hit;
            }
            let probes = (1..=HEADER_PROBES)
                .map(|k| y + 1 + k * SCAN_STRIDE)
                .filter(|&py| py < bottom)
                .map(|py| at(px, py));
            join_all(probes)
                .await
                .into_iter()
                .find(|o| is_cell(o))
                .unwrap_or(hit)
        };
        let (top_left, top_right) = futures::join!(
            below_headers(x + 1, top_left),
            below_headers(right, top_right)
        );
        let Some(first) = cell_at(top_left?) else {
            return Ok(None);
        };
        let (r0, c0) = self.cell_position(h, &table, &first).await?;
        let position = |o: Result<atspi::ObjectRefOwned>| {
            let table = &table;
            async move {
                match o.ok().and_then(cell_at) {
                    Some(c) => self.cell_position(h, table, &c).await.ok(),
                    None => None,
                }
            }
        };
        let (br, bl, tr) = futures::join!(
            position(bottom_right),
            position(bottom_left),
            position(top_right)
        );
        let (n_rows, n_cols) = (n_rows.unwrap_or(0), n_cols.unwrap_or(0));
        // A corner that hits no cell lies past the last row or column: the
        // table's own size is where they end.
        let mut r1 = br
            .or(bl)
            .map_or(if n_rows > 0 { n_rows - 1 } else { r0 }, |p| p.0);
        let mut c1 = br
            .or(tr)
            .map_or(if n_cols > 0 { n_cols - 1 } else { c0 }, |p| p.1);
        if n_rows > 0 {
            r1 = r1.min(n_rows - 1);
        }
        if n_cols > 0 {
            c1 = c1.min(n_cols - 1);
        }
        r1 = r1.max(r0);
        c1 = c1.max(c0);
        let cols = (c1 - c0 + 1).clamp(1, MAX_TABLE_COLUMNS);
        let rows = (r1 - r0 + 1).clamp(1, (limit / cols).max(1));
        let wanted: Vec<(i32, i32)> = (r0..r0 + rows)
            .flat_map(|r| (c0..c0 + cols).map(move |c| (r, c)))
            .collect();
        // The visible columns' headers first, as a person reads a table.
        let mut refs = self.column_headers(h, &table, c0..c0 + cols).await;
        refs.extend(self.cells_at(h, &table, &wanted).await);
        Ok(Some(Children {
            refs,
            note: None,
            cells: true,
        }))
    }

    /// The headers of table `h`'s columns `columns`, those it has (a click
    /// on one sorts by it; the filter names each cell's column after them).
    /// Hit-testing down a table's rows never reaches them.
    async fn column_headers(
        &self,
        h: &ObjRef,
        table: &atspi::proxy::table::TableProxy<'static>,
        columns: std::ops::Range<i32>,
    ) -> Vec<ObjRef> {
        let (bus, own) = (h.bus(), h.path());
        let got =
            join_all(columns.map(|c| call(h, "GetColumnHeader", table.get_column_header(c)))).await;
        let mut headers: Vec<ObjRef> = refs(bus, got.iter().filter_map(|r| r.as_ref().ok()))
            .into_iter()
            .filter(|c| c.path() != own)
            .collect();
        headers.dedup();
        headers
    }

    /// The cells of table `h` at `wanted` (row, column), in that order:
    /// those obtained before from the cache, the others asked for.
    /// LibreOffice makes a new accessible object (~7 KB, never freed) for
    /// every GetAccessibleAt: cells asked for before are reused, so memory
    /// grows only with the cells a person scrolls to, not per observation.
    async fn cells_at(
        &self,
        h: &ObjRef,
        table: &atspi::proxy::table::TableProxy<'static>,
        wanted: &[(i32, i32)],
    ) -> Vec<ObjRef> {
        let bus = h.bus();
        let known = self.cell_cache.known(&h.0, wanted);
        let fetched = join_all(wanted.iter().zip(&known).filter(|(_, k)| k.is_none()).map(
            |(&(r, c), _)| async move {
                let o = call(h, "GetAccessibleAt", table.get_accessible_at(r, c)).await;
                ((r, c), o.ok().and_then(|o| refs(bus, [&o]).pop()))
            },
        ))
        .await;
        let fetched: std::collections::HashMap<(i32, i32), ObjRef> = fetched
            .into_iter()
            .filter_map(|(rc, o)| Some((rc, o?)))
            .collect();
        self.cell_cache.remember(&h.0, &fetched);
        wanted
            .iter()
            .zip(known)
            .filter_map(|(rc, k)| k.or_else(|| fetched.get(rc).cloned()))
            .collect()
    }

    /// The children of container `h` that are on screen, found by hit-testing
    /// down its visible area (left quarter and middle) in two rounds of
    /// concurrent probes: the first, [`SAMPLE_PROBES`] probes [`SCAN_STRIDE`]
    /// apart from its top, measures the shortest row; the second probes every
    /// such pitch down the rest of it. A row at least as tall as the pitch
    /// holds a probe, so none is skipped. At most `limit` children, at most
    /// [`MAX_SCAN_STEPS`] probe heights. `None` when nothing is hit.
    async fn visible_rows(&self, h: &ObjRef, limit: i32) -> Result<Option<Children>> {
        let (bus, own) = (h.bus(), h.path());
        let comp = self.component(h).await?;
        let (x, y, w, hgt) = call(h, "GetExtents", comp.get_extents(CoordType::Screen)).await?;
        if w <= 2 || hgt <= 2 {
            return Ok(None);
        }
        // Only what the screen shows of it (a long list is taller than its
        // scrolled window).
        let screen = self.x11.screen_rect();
        let (top, bottom) = (y.max(screen.y) + 1, (y + hgt).min(screen.bottom()) - 1);
        let xs = [x + w / 4, x + w / 2];
        // One probe: the child hit at (px, py), and its height when `measure`.
        let probe = |px: i32, py: i32, measure: bool| {
            let comp = &comp;
            async move {
                let o = call(
                    h,
                    "GetAccessibleAtPoint",
                    comp.get_accessible_at_point(px, py, CoordType::Screen),
                )
                .await
                .ok()?;
                let r = refs(bus, [&o]).pop().filter(|c| c.path() != own)?;
                if !measure {
                    return Some((r, 0));
                }
                let height = match self.component(&r).await {
                    Ok(c) => call(&r, "GetExtents", c.get_extents(CoordType::Screen))
                        .await
                        .map_or(0, |e| e.3),
                    Err(_) => 0,
                };
                Some((r, height))
            }
        };
        let probes = |ys: Vec<i32>, measure: bool| {
            join_all(
                ys.into_iter()
                    .flat_map(|py| xs.map(|px| (px, py)))
                    .map(|(px, py)| probe(px, py, measure)),
            )
        };
        let sample: Vec<i32> = (0..SAMPLE_PROBES)
            .map(|i| top + i * SCAN_STRIDE)
            .filter(|&py| py < bottom)
            .collect();
        let first = probes(sample.clone(), true).await;
        let pitch = first
            .iter()
            .flatten()
            .map(|(_, height)| *height)
            .filter(|&height| height > 0)
            .min()
            .unwrap_or(SCAN_STRIDE)
            .max(SCAN_STRIDE);
        let from = sample.last().map_or(top, |&l| l + SCAN_STRIDE);
        let rest: Vec<i32> = (0..MAX_SCAN_STEPS - SAMPLE_PROBES)
            .map(|i| from + i * pitch)
            .take_while(|&py| py < bottom)
            .collect();
        // Only the first round's heights are used.
        let second = probes(rest, false).await;
        let mut seen: Vec<ObjRef> = Vec::new();
        for (r, _) in first.into_iter().chain(second).flatten() {
            if seen.len() >= limit as usize {
                break;
            }
            if !seen.contains(&r) {
                seen.push(r);
            }
        }
        if seen.is_empty() {
            return Ok(None);
        }
        Ok(Some(Children {
            refs: seen,
            ..Children::default()
        }))
    }

    /// Row and column of a cell of `table`: the TableCell interface, else the
    /// table's index arithmetic.
    async fn cell_position(
        &self,
        h: &ObjRef,
        table: &atspi::proxy::table::TableProxy<'static>,
        cell: &ObjRef,
    ) -> Result<(i32, i32)> {
        if let Ok(tc) = self.table_cell(cell).await
            && let Ok(p) = call(cell, "Position", tc.position()).await
        {
            return Ok(p);
        }
        let acc = self.accessible(cell).await?;
        let index = call(cell, "GetIndexInParent", acc.get_index_in_parent()).await?;
        let (r, c) = futures::join!(
            call(h, "GetRowAtIndex", table.get_row_at_index(index)),
            call(h, "GetColumnAtIndex", table.get_column_at_index(index))
        );
        Ok((r?, c?))
    }
}

/// Cell objects already obtained per table (see [`AtspiBackend::read_children`]).
#[derive(Debug, Default)]
pub(crate) struct CellCache {
    tables: std::sync::Mutex<std::collections::HashMap<String, TableCells>>,
}

type TableCells = std::collections::HashMap<(i32, i32), ObjRef>;

/// Most cells remembered over all tables; past it the cache starts afresh.
const MAX_CACHED_CELLS: usize = 50_000;

impl CellCache {
    /// The remembered cell of each `(row, column)`, in order.
    fn known(&self, table: &str, cells: &[(i32, i32)]) -> Vec<Option<ObjRef>> {
        let Ok(t) = self.tables.lock() else {
            return vec![None; cells.len()];
        };
        match t.get(table) {
            Some(m) => cells.iter().map(|rc| m.get(rc).cloned()).collect(),
            None => vec![None; cells.len()],
        }
    }

    fn remember(&self, table: &str, cells: &TableCells) {
        if cells.is_empty() {
            return;
        }
        let Ok(mut t) = self.tables.lock() else {
            return;
        };
        if t.values()
            .map(std::collections::HashMap::len)
            .sum::<usize>()
            + cells.len()
            > MAX_CACHED_CELLS
        {
            t.clear();
        }
        t.entry(table.to_owned())
            .or_default()
            .extend(cells.iter().map(|(k, v)| (*k, v.clone())));
    }

    /// Forgets a cell that turned out to be gone.
    pub(crate) fn forget(&self, cell: &ObjRef) {
        if let Ok(mut t) = self.tables.lock() {
            for m in t.values_mut() {
                m.retain(|_, c| c != cell);
            }
        }
    }
}
