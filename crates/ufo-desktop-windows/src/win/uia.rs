//! The UI Automation layer: capture with one cached request per container,
//! and actions through control patterns.
//!
//! Not exercised under Wine (its `uiautomationcore` has no client); its
//! conversion is tested on recorded element data (`crate::record`).
#![allow(unsafe_code)]

use crate::handle::WinHandle;
use crate::record::{ElementRecord, Expand, Layer, Patterns, Toggle};
use std::collections::{HashMap, VecDeque};
use std::time::Instant;
use ufo_core::{UiNode, UiTree, WindowInfo};
use ufo_desktop::{DesktopError, Result, TreeBudget};
use windows::Win32::System::Com::{CLSCTX_INPROC_SERVER, CoCreateInstance};
use windows::Win32::System::Ole::{
    SafeArrayDestroy, SafeArrayGetElement, SafeArrayGetLBound, SafeArrayGetUBound,
};
use windows::Win32::System::Variant::{VARIANT, VT_BOOL, VT_BSTR, VT_I4, VT_R8};
use windows::Win32::UI::Accessibility as ua;
use windows::core::{BSTR, Interface};

/// The properties every capture caches.
const PROPERTIES: &[ua::UIA_PROPERTY_ID] = &[
    ua::UIA_ControlTypePropertyId,
    ua::UIA_NamePropertyId,
    ua::UIA_ClassNamePropertyId,
    ua::UIA_AutomationIdPropertyId,
    ua::UIA_HelpTextPropertyId,
    ua::UIA_BoundingRectanglePropertyId,
    ua::UIA_IsEnabledPropertyId,
    ua::UIA_IsOffscreenPropertyId,
    ua::UIA_HasKeyboardFocusPropertyId,
    ua::UIA_IsKeyboardFocusablePropertyId,
    ua::UIA_IsPasswordPropertyId,
    ua::UIA_IsInvokePatternAvailablePropertyId,
    ua::UIA_IsValuePatternAvailablePropertyId,
    ua::UIA_IsRangeValuePatternAvailablePropertyId,
    ua::UIA_IsTogglePatternAvailablePropertyId,
    ua::UIA_IsSelectionPatternAvailablePropertyId,
    ua::UIA_IsSelectionItemPatternAvailablePropertyId,
    ua::UIA_IsExpandCollapsePatternAvailablePropertyId,
    ua::UIA_IsScrollPatternAvailablePropertyId,
    ua::UIA_IsTextPatternAvailablePropertyId,
    ua::UIA_ValueValuePropertyId,
    ua::UIA_ValueIsReadOnlyPropertyId,
    ua::UIA_RangeValueValuePropertyId,
    ua::UIA_ToggleToggleStatePropertyId,
    ua::UIA_ExpandCollapseExpandCollapseStatePropertyId,
    ua::UIA_SelectionItemIsSelectedPropertyId,
];

/// The UI Automation client of the worker thread.
pub(crate) struct Uia {
    auto: ua::IUIAutomation,
    cache: ua::IUIAutomationCacheRequest,
    view: ua::IUIAutomationCondition,
}

fn com(what: &str) -> impl Fn(windows::core::Error) -> DesktopError + '_ {
    move |e| DesktopError::backend_by(format!("UI Automation {what} failed"), e)
}

fn stale(handle: &str) -> impl Fn(windows::core::Error) -> DesktopError + '_ {
    move |e| DesktopError::StaleElement {
        handle: handle.to_owned(),
        detail: e.message(),
    }
}

/// A cached property as a typed value.
enum Prop {
    Bool(bool),
    Int(i32),
    Real(f64),
    Text(String),
    None,
}

fn prop(e: &ua::IUIAutomationElement, id: ua::UIA_PROPERTY_ID) -> Prop {
    // SAFETY: the union is read as the member its type tag names.
    unsafe {
        let Ok(v): windows::core::Result<VARIANT> = e.GetCachedPropertyValue(id) else {
            return Prop::None;
        };
        let inner = &v.Anonymous.Anonymous;
        match inner.vt {
            VT_BOOL => Prop::Bool(inner.Anonymous.boolVal.0 != 0),
            VT_I4 => Prop::Int(inner.Anonymous.lVal),
            VT_R8 => Prop::Real(inner.Anonymous.dblVal),
            VT_BSTR => Prop::Text(inner.Anonymous.bstrVal.to_string()),
            _ => Prop::None,
        }
    }
}

fn flag(e: &ua::IUIAutomationElement, id: ua::UIA_PROPERTY_ID) -> bool {
    matches!(prop(e, id), Prop::Bool(true))
}

fn text(e: &ua::IUIAutomationElement, id: ua::UIA_PROPERTY_ID) -> String {
    match prop(e, id) {
        Prop::Text(s) => s,
        _ => String::new(),
    }
}

/// The class name and automation id cached by the capture that found `e`.
pub(crate) fn identity(e: &ua::IUIAutomationElement) -> ufo_desktop::Identity {
    ufo_desktop::Identity::of(
        text(e, ua::UIA_ClassNamePropertyId),
        text(e, ua::UIA_AutomationIdPropertyId),
    )
}

fn int(e: &ua::IUIAutomationElement, id: ua::UIA_PROPERTY_ID) -> Option<i32> {
    match prop(e, id) {
        Prop::Int(i) => Some(i),
        _ => None,
    }
}

/// The record of an element from its cached properties.
fn record(e: &ua::IUIAutomationElement) -> ElementRecord {
    let patterns = Patterns {
        invoke: flag(e, ua::UIA_IsInvokePatternAvailablePropertyId),
        value: flag(e, ua::UIA_IsValuePatternAvailablePropertyId),
        range_value: flag(e, ua::UIA_IsRangeValuePatternAvailablePropertyId),
        toggle: flag(e, ua::UIA_IsTogglePatternAvailablePropertyId),
        selection: flag(e, ua::UIA_IsSelectionPatternAvailablePropertyId),
        selection_item: flag(e, ua::UIA_IsSelectionItemPatternAvailablePropertyId),
        expand_collapse: flag(e, ua::UIA_IsExpandCollapsePatternAvailablePropertyId),
        scroll: flag(e, ua::UIA_IsScrollPatternAvailablePropertyId),
        text: flag(e, ua::UIA_IsTextPatternAvailablePropertyId),
    };
    // SAFETY: a cached read of a live element.
    let r = unsafe { e.CachedBoundingRectangle() }.ok();
    ElementRecord {
        layer: Layer::Uia,
        control_type_id: int(e, ua::UIA_ControlTypePropertyId),
        class_name: text(e, ua::UIA_ClassNamePropertyId),
        name: text(e, ua::UIA_NamePropertyId),
        automation_id: text(e, ua::UIA_AutomationIdPropertyId),
        help_text: text(e, ua::UIA_HelpTextPropertyId),
        rect: r.map(|r| [r.left, r.top, r.right - r.left, r.bottom - r.top]),
        enabled: flag(e, ua::UIA_IsEnabledPropertyId),
        visible: !flag(e, ua::UIA_IsOffscreenPropertyId),
        focused: flag(e, ua::UIA_HasKeyboardFocusPropertyId),
        focusable: flag(e, ua::UIA_IsKeyboardFocusablePropertyId),
        password: flag(e, ua::UIA_IsPasswordPropertyId),
        value: patterns
            .value
            .then(|| text(e, ua::UIA_ValueValuePropertyId)),
        read_only: flag(e, ua::UIA_ValueIsReadOnlyPropertyId),
        range_value: match prop(e, ua::UIA_RangeValueValuePropertyId) {
            Prop::Real(v) if patterns.range_value => Some(v),
            _ => None,
        },
        toggle: patterns
            .toggle
            .then(|| match int(e, ua::UIA_ToggleToggleStatePropertyId) {
                Some(1) => Toggle::On,
                Some(2) => Toggle::Indeterminate,
                _ => Toggle::Off,
            }),
        expand: patterns.expand_collapse.then(|| {
            match int(e, ua::UIA_ExpandCollapseExpandCollapseStatePropertyId) {
                Some(1) => Expand::Expanded,
                Some(2) => Expand::PartiallyExpanded,
                Some(3) => Expand::LeafNode,
                _ => Expand::Collapsed,
            }
        }),
        selected: patterns
            .selection_item
            .then(|| flag(e, ua::UIA_SelectionItemIsSelectedPropertyId)),
        patterns,
        ..Default::default()
    }
}

/// The element's runtime id.
fn runtime_id(e: &ua::IUIAutomationElement) -> Option<Vec<i32>> {
    // SAFETY: the SAFEARRAY is read within its bounds and destroyed once.
    unsafe {
        let sa = e.GetRuntimeId().ok()?;
        if sa.is_null() {
            return None;
        }
        let (lo, hi) = (
            SafeArrayGetLBound(sa, 1).ok()?,
            SafeArrayGetUBound(sa, 1).ok()?,
        );
        let mut out = Vec::new();
        for i in lo..=hi.min(lo + 64) {
            let mut v = 0i32;
            if SafeArrayGetElement(sa, &i, (&mut v as *mut i32).cast()).is_ok() {
                out.push(v);
            }
        }
        let _ = SafeArrayDestroy(sa);
        Some(out)
    }
}

impl Uia {
    /// Connects to UI Automation; fails where it has no client (Wine 8).
    pub(crate) fn new() -> windows::core::Result<Self> {
        // SAFETY: COM is initialised on this thread (the worker).
        unsafe {
            let auto: ua::IUIAutomation =
                CoCreateInstance(&ua::CUIAutomation, None, CLSCTX_INPROC_SERVER)?;
            let cache = auto.CreateCacheRequest()?;
            for p in PROPERTIES {
                cache.AddProperty(*p)?;
            }
            let view = auto.ControlViewCondition()?;
            Ok(Self { auto, cache, view })
        }
    }

    /// Captures `window` within `budget`; the elements are kept in
    /// `elements` by handle for later actions.
    pub(crate) fn capture(
        &self,
        window: &WindowInfo,
        budget: &TreeBudget,
        elements: &mut HashMap<String, ua::IUIAutomationElement>,
    ) -> Result<UiTree> {
        let top = window.native_id.unwrap_or(0);
        let started = Instant::now();
        // SAFETY: COM calls on live objects of this thread.
        let root = unsafe {
            self.auto
                .ElementFromHandleBuildCache(super::win32::hwnd(top), &self.cache)
        }
        .map_err(stale(&window.handle.0))?;
        if elements.len() > 100_000 {
            elements.clear();
        }
        let mut nodes: Vec<UiNode> = Vec::new();
        let mut truncation: Option<String> = None;
        let mut queue = VecDeque::from([(root, None::<usize>, 0u32)]);
        while let Some((e, parent, depth)) = queue.pop_front() {
            if nodes.len() >= budget.max_nodes {
                truncation = Some(format!("max_nodes ({})", budget.max_nodes));
                break;
            }
            if started.elapsed() > budget.deadline {
                truncation = Some(format!("deadline ({} ms)", budget.deadline.as_millis()));
                break;
            }
            let handle = WinHandle::Uia {
                hwnd: top,
                runtime_id: runtime_id(&e).unwrap_or_default(),
            }
            .encode();
            let index = nodes.len();
            let rec = record(&e);
            nodes.push(rec.to_node(handle.clone(), index, parent, depth, budget.max_text_chars));
            if let Some(p) = parent.and_then(|p| nodes.get_mut(p)) {
                p.children.push(index);
            }
            elements.insert(handle.0, e.clone());
            if depth >= budget.max_depth {
                truncation.get_or_insert_with(|| format!("max_depth ({})", budget.max_depth));
                continue;
            }
            // One round trip for all the children and their properties.
            // SAFETY: COM calls on live objects of this thread.
            let kids =
                unsafe { e.FindAllBuildCache(ua::TreeScope_Children, &self.view, &self.cache) };
            let Ok(kids) = kids else { continue };
            let n = unsafe { kids.Length() }.unwrap_or(0).max(0) as usize;
            if n > budget.max_children {
                truncation.get_or_insert_with(|| format!("max_children ({})", budget.max_children));
            }
            for i in 0..n.min(budget.max_children) {
                // SAFETY: index within Length().
                if let Ok(k) = unsafe { kids.GetElement(i as i32) } {
                    queue.push_back((k, Some(index), depth + 1));
                }
            }
        }
        Ok(UiTree {
            window: window.clone(),
            nodes,
            truncated: truncation.is_some(),
            truncation,
        })
    }

    /// Re-reads one element.
    pub(crate) fn refresh(
        &self,
        e: &ua::IUIAutomationElement,
        handle: &str,
        max_text: usize,
    ) -> Result<UiNode> {
        // SAFETY: COM call on a live object of this thread.
        let fresh = unsafe { e.BuildUpdatedCache(&self.cache) }.map_err(stale(handle))?;
        Ok(record(&fresh).to_node(
            ufo_core::ElementHandle(handle.to_owned()),
            0,
            None,
            0,
            max_text,
        ))
    }

    /// The `index`-th child of `e` in the control view.
    pub(crate) fn child(
        &self,
        e: &ua::IUIAutomationElement,
        index: usize,
    ) -> Result<ua::IUIAutomationElement> {
        // SAFETY: COM calls on live objects of this thread.
        unsafe {
            let kids = e
                .FindAll(ua::TreeScope_Children, &self.view)
                .map_err(com("FindAll"))?;
            kids.GetElement(i32::try_from(index).unwrap_or(i32::MAX))
                .map_err(|_| DesktopError::BadArguments {
                    tool: "select".into(),
                    detail: format!("the container has no item {index}"),
                })
        }
    }
}

fn pattern<T: Interface>(
    e: &ua::IUIAutomationElement,
    id: ua::UIA_PATTERN_ID,
    handle: &str,
    what: &str,
) -> Result<T> {
    // SAFETY: COM call on a live object of this thread.
    unsafe { e.GetCurrentPatternAs::<T>(id) }.map_err(|_| DesktopError::Unsupported {
        what: what.to_owned(),
        handle: handle.to_owned(),
    })
}

/// Performs a named action through its pattern; `Ok(false)` when the
/// element does not offer it.
pub(crate) fn action(e: &ua::IUIAutomationElement, handle: &str, name: &str) -> Result<bool> {
    let done = |r: windows::core::Result<()>| r.map(|()| true).map_err(stale(handle));
    // SAFETY: COM calls on live objects of this thread.
    unsafe {
        match name {
            "click" | "invoke" | "press" => {
                match pattern::<ua::IUIAutomationInvokePattern>(
                    e,
                    ua::UIA_InvokePatternId,
                    handle,
                    "click",
                ) {
                    Ok(p) => done(p.Invoke()),
                    Err(_) => Ok(false),
                }
            }
            "toggle" => match pattern::<ua::IUIAutomationTogglePattern>(
                e,
                ua::UIA_TogglePatternId,
                handle,
                name,
            ) {
                Ok(p) => done(p.Toggle()),
                Err(_) => Ok(false),
            },
            "select" => match pattern::<ua::IUIAutomationSelectionItemPattern>(
                e,
                ua::UIA_SelectionItemPatternId,
                handle,
                name,
            ) {
                Ok(p) => done(p.Select()),
                Err(_) => Ok(false),
            },
            "expand" | "collapse" => match pattern::<ua::IUIAutomationExpandCollapsePattern>(
                e,
                ua::UIA_ExpandCollapsePatternId,
                handle,
                name,
            ) {
                Ok(p) if name == "expand" => done(p.Expand()),
                Ok(p) => done(p.Collapse()),
                Err(_) => Ok(false),
            },
            _ => Ok(false),
        }
    }
}

/// Replaces the element's value (ValuePattern).
pub(crate) fn set_value_text(e: &ua::IUIAutomationElement, handle: &str, text: &str) -> Result<()> {
    let p: ua::IUIAutomationValuePattern =
        pattern(e, ua::UIA_ValuePatternId, handle, "setting text")?;
    // SAFETY: COM call on a live object of this thread.
    unsafe { p.SetValue(&BSTR::from(text)) }.map_err(stale(handle))
}

/// Reads the element's text: TextPattern, else ValuePattern, else its name.
pub(crate) fn read_text(e: &ua::IUIAutomationElement, handle: &str) -> Result<String> {
    // SAFETY: COM calls on live objects of this thread.
    unsafe {
        if let Ok(t) =
            pattern::<ua::IUIAutomationTextPattern>(e, ua::UIA_TextPatternId, handle, "text")
            && let Ok(s) = t.DocumentRange().and_then(|r| r.GetText(1_000_000))
        {
            return Ok(s.to_string());
        }
        if let Ok(v) =
            pattern::<ua::IUIAutomationValuePattern>(e, ua::UIA_ValuePatternId, handle, "value")
        {
            return v
                .CurrentValue()
                .map(|s| s.to_string())
                .map_err(stale(handle));
        }
        e.CurrentName()
            .map(|s| s.to_string())
            .map_err(stale(handle))
    }
}

/// Sets a numeric value (RangeValuePattern).
pub(crate) fn set_range(e: &ua::IUIAutomationElement, handle: &str, v: f64) -> Result<()> {
    let p: ua::IUIAutomationRangeValuePattern =
        pattern(e, ua::UIA_RangeValuePatternId, handle, "setting a value")?;
    // SAFETY: COM call on a live object of this thread.
    unsafe { p.SetValue(v) }.map_err(stale(handle))
}

/// Selects the element in its container (SelectionItemPattern).
pub(crate) fn select(e: &ua::IUIAutomationElement, handle: &str) -> Result<()> {
    let p: ua::IUIAutomationSelectionItemPattern =
        pattern(e, ua::UIA_SelectionItemPatternId, handle, "selecting")?;
    // SAFETY: COM call on a live object of this thread.
    unsafe { p.Select() }.map_err(stale(handle))
}

/// Gives the element keyboard focus.
pub(crate) fn focus(e: &ua::IUIAutomationElement, handle: &str) -> Result<()> {
    // SAFETY: COM call on a live object of this thread.
    unsafe { e.SetFocus() }.map_err(stale(handle))
}
