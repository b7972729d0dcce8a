//! A block of memory in another process, for the common-control messages
//! whose parameters point at structures (`TVM_GETITEMW`, `LVM_GETITEMTEXTW`,
//! `TB_GETBUTTON`, ...): the system does not carry those across processes,
//! so the structure is written where the control can read it, and read
//! back once the control has filled it (as pywinauto's `RemoteMemoryBlock`).
#![allow(unsafe_code)]

use super::win32;
use crate::items::Layout;
use core::ffi::c_void;
use windows::Win32::Foundation::{CloseHandle, HANDLE, HWND};
use windows::Win32::System::Threading::{IsWow64Process, OpenProcess, PROCESS_ACCESS_RIGHTS};

/// `PROCESS_VM_OPERATION | PROCESS_VM_READ | PROCESS_VM_WRITE |
/// PROCESS_QUERY_INFORMATION`.
const ACCESS: u32 = 0x0008 | 0x0010 | 0x0020 | 0x0400;
const MEM_COMMIT: u32 = 0x1000;
const MEM_RESERVE: u32 = 0x2000;
const MEM_RELEASE: u32 = 0x8000;
const PAGE_READWRITE: u32 = 0x04;

#[link(name = "kernel32")]
unsafe extern "system" {
    fn VirtualAllocEx(
        process: HANDLE,
        address: *const c_void,
        size: usize,
        kind: u32,
        protect: u32,
    ) -> *mut c_void;
    fn VirtualFreeEx(process: HANDLE, address: *mut c_void, size: usize, kind: u32) -> i32;
    fn ReadProcessMemory(
        process: HANDLE,
        base: *const c_void,
        buffer: *mut c_void,
        size: usize,
        read: *mut usize,
    ) -> i32;
    fn WriteProcessMemory(
        process: HANDLE,
        base: *mut c_void,
        buffer: *const c_void,
        size: usize,
        written: *mut usize,
    ) -> i32;
}

/// Memory committed in the process owning a window; freed on drop.
pub(crate) struct Remote {
    process: HANDLE,
    base: *mut c_void,
    size: usize,
    /// The structure layout of that process (its pointer width).
    pub(crate) layout: Layout,
}

impl Remote {
    /// `size` bytes in the process of `h`; `None` when the process cannot
    /// be opened (another user's, elevated) or has no room.
    pub(crate) fn new(h: HWND, size: usize) -> Option<Remote> {
        let (pid, _) = win32::pid_tid(h);
        // SAFETY: the handle is closed on drop (or below on failure); the
        // allocation is freed on drop.
        unsafe {
            let process = OpenProcess(PROCESS_ACCESS_RIGHTS(ACCESS), false, pid).ok()?;
            let mut wow = windows::core::BOOL(0);
            let wow64 = IsWow64Process(process, &mut wow).is_ok() && wow.as_bool();
            let base = VirtualAllocEx(
                process,
                std::ptr::null(),
                size,
                MEM_COMMIT | MEM_RESERVE,
                PAGE_READWRITE,
            );
            if base.is_null() {
                let _ = CloseHandle(process);
                return None;
            }
            Some(Remote {
                process,
                base,
                size,
                layout: Layout {
                    ptr: if wow64 || cfg!(target_pointer_width = "32") {
                        4
                    } else {
                        8
                    },
                },
            })
        }
    }

    /// The address of `offset` in the other process.
    pub(crate) fn addr(&self, offset: usize) -> u64 {
        self.base as u64 + offset as u64
    }

    /// Writes `bytes` at `offset`; false when it does not fit or fails.
    pub(crate) fn write(&self, offset: usize, bytes: &[u8]) -> bool {
        if offset + bytes.len() > self.size {
            return false;
        }
        let mut n = 0usize;
        // SAFETY: the range lies in the block committed in `new`; `bytes`
        // outlives the call.
        unsafe {
            WriteProcessMemory(
                self.process,
                self.base.cast::<u8>().add(offset).cast(),
                bytes.as_ptr().cast(),
                bytes.len(),
                &mut n,
            ) != 0
                && n == bytes.len()
        }
    }

    /// Reads `len` bytes at `offset` of the block.
    pub(crate) fn read(&self, offset: usize, len: usize) -> Option<Vec<u8>> {
        if offset + len > self.size {
            return None;
        }
        self.read_at(self.addr(offset), len)
    }

    /// Reads `len` bytes at any address of the other process (a control
    /// may answer with a pointer to its own text).
    pub(crate) fn read_at(&self, addr: u64, len: usize) -> Option<Vec<u8>> {
        let mut out = vec![0u8; len];
        let mut n = 0usize;
        // SAFETY: the other process's memory is read through the system
        // (an unmapped address fails the call); `out` has room for `len`.
        let ok = unsafe {
            ReadProcessMemory(
                self.process,
                addr as usize as *const c_void,
                out.as_mut_ptr().cast(),
                len,
                &mut n,
            ) != 0
        };
        (ok && n == len).then_some(out)
    }

    /// Writes zeros over `len` bytes at `offset`.
    pub(crate) fn clear(&self, offset: usize, len: usize) -> bool {
        self.write(offset, &vec![0u8; len])
    }
}

impl Drop for Remote {
    fn drop(&mut self) {
        // SAFETY: `base` was allocated in `process` by `new`; both are
        // released once.
        unsafe {
            let _ = VirtualFreeEx(self.process, self.base, 0, MEM_RELEASE);
            let _ = CloseHandle(self.process);
        }
    }
}
