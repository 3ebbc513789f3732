//! Simulated global and shared memory, bounds-checked.
//!
//! Takes the buffers' atomic cells (from `Buffer`) and, with race detection on, the shadows of
//! `race`. Gives [`Global`] (a kernel's view of a buffer), [`Shared`] (one block's shared
//! array, also multi-dimensional), [`LocalArrays`] (one local array of every thread of a
//! block) and [`ArrayRef`] (what the last two are accessed through). Guarantees: every access is bounds-checked, an index past a
//! dimension's end is a [`Fault::OutOfBounds`] naming the array, never a panic; with a shadow,
//! every access is recorded for race detection.

mod in_flight;

use super::race::{GlobalShadow, SharedShadow};
use super::{Fault, Loc};
use crate::scalar::{Element, Scalar};
use in_flight::{Copies, MmaReads};
use std::cell::Cell;

/// A kernel's view of a buffer in global memory.
pub struct Global<'a, T: Element> {
    cells: &'a [T::Cell],
    name: &'static str,
    shadow: Option<&'a GlobalShadow>,
    /// Whether plain (not atomic) loads and stores are sound ([`Global::assume_plain`]).
    plain: bool,
}

impl<T: Element> Clone for Global<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Global<'_, T> {}

impl<'a, T: Element> Global<'a, T> {
    /// A view of `cells`, called `name` in errors, with race detection when `shadow` is given.
    pub fn new(cells: &'a [T::Cell], name: &'static str, shadow: Option<&'a GlobalShadow>) -> Self {
        Global {
            cells,
            name,
            shadow,
            plain: false,
        }
    }
    /// The view, marked as one the straight thread loops may access with plain loads and
    /// stores (see [`Global::plain`]).
    ///
    /// # Safety
    /// For the whole launch, either nothing writes the buffer, or every element is accessed
    /// by at most one GPU thread of the grid (so by one CPU thread at a time).
    pub unsafe fn assume_plain(self) -> Self {
        Global {
            plain: true,
            ..self
        }
    }
    /// Whether the view allows plain loads and stores ([`Global::load_plain`]): the buffer
    /// is read-only, or each of its elements belongs to one GPU thread in this launch.
    #[inline(always)]
    pub fn plain(self) -> bool {
        self.plain
    }
    /// Whether accesses need not be recorded for race detection.
    #[inline(always)]
    pub fn unshadowed(self) -> bool {
        self.shadow.is_none()
    }
    /// Whether `i` is an element (a straight loop's first pass checks every index).
    #[inline(always)]
    pub fn holds(self, i: usize) -> bool {
        i < self.cells.len()
    }
    /// Number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.cells.len()
    }
    /// Whether there are no elements.
    pub fn is_empty(self) -> bool {
        self.cells.is_empty()
    }
    /// The view of scalar field `leaf` (of `T::LEAVES`, in declaration order, nested structs
    /// flattened) of a buffer of structs, called `name` in errors; `project` picks the field's
    /// cell out of an element's.
    pub fn field<F: Scalar>(
        self,
        leaf: usize,
        name: &'static str,
        project: fn(&T::Cell) -> &F::Cell,
    ) -> Field<'a, T, F> {
        Field {
            cells: self.cells,
            leaf,
            name,
            project,
            shadow: self.shadow,
            plain: self.plain,
        }
    }
}

impl<T: Scalar> Global<'_, T> {
    /// Reads element `i` atomically, unchecked and unrecorded.
    ///
    /// # Safety
    /// `i` is an element, and the view has no shadow (or the caller records the access).
    #[inline(always)]
    pub unsafe fn load_unchecked(self, i: usize) -> T {
        debug_assert!(i < self.cells.len());
        // SAFETY: the caller guarantees `i` is in range.
        T::load(unsafe { self.cells.get_unchecked(i) })
    }
    /// Writes element `i` atomically, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`Global::load_unchecked`].
    #[inline(always)]
    pub unsafe fn store_unchecked(self, i: usize, v: T) {
        debug_assert!(i < self.cells.len());
        // SAFETY: the caller guarantees `i` is in range.
        T::store(unsafe { self.cells.get_unchecked(i) }, v);
    }
    /// Reads element `i` with a plain load, unchecked and unrecorded.
    ///
    /// # Safety
    /// `i` is an element, the view is [`Global::plain`], and no thread of the launch but the
    /// caller's GPU thread writes the element.
    #[inline(always)]
    pub unsafe fn load_plain(self, i: usize) -> T {
        debug_assert!(self.plain && i < self.cells.len());
        // SAFETY: in range, and no concurrent write (the caller's and `plain`'s guarantees).
        unsafe { T::load_plain(self.cells.get_unchecked(i)) }
    }
    /// Writes element `i` with a plain store, unchecked and unrecorded.
    ///
    /// # Safety
    /// `i` is an element, the view is [`Global::plain`] and the buffer written (so each
    /// element belongs to one GPU thread), and the element is the caller's GPU thread's.
    #[inline(always)]
    pub unsafe fn store_plain(self, i: usize, v: T) {
        debug_assert!(self.plain && i < self.cells.len());
        // SAFETY: in range, and no concurrent access (the caller's and `plain`'s guarantees).
        unsafe { T::store_plain(self.cells.get_unchecked(i), v) }
    }
    /// Reads element `i`.
    #[inline(always)]
    pub fn load(self, i: usize, loc: &'static Loc) -> Result<T, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.read(self.name, i, false, loc)?;
                }
                Ok(T::load(c))
            }
            None => Err(self.oob(i, loc)),
        }
    }
    /// Writes element `i`.
    #[inline(always)]
    pub fn store(self, i: usize, v: T, loc: &'static Loc) -> Result<(), Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write(self.name, i, false, loc)?;
                }
                T::store(c, v);
                Ok(())
            }
            None => Err(self.oob(i, loc)),
        }
    }
    /// Atomically replaces element `i` with `f(old)`; returns the old value.
    #[inline(always)]
    pub fn rmw(self, i: usize, f: impl Fn(T) -> T, loc: &'static Loc) -> Result<T, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write(self.name, i, true, loc)?;
                }
                Ok(T::rmw(c, f))
            }
            None => Err(self.oob(i, loc)),
        }
    }
    #[cold]
    fn oob(self, i: usize, loc: &'static Loc) -> Fault {
        Fault::OutOfBounds {
            array: self.name,
            index: i as u64,
            len: self.cells.len() as u64,
            loc,
        }
    }
}

/// One scalar field of every element of a buffer of structs: what a kernel's `ps[i].x`
/// reads and writes. Race detection tracks each field of an element on its own (two threads
/// writing different fields of one element do not race).
pub struct Field<'a, R: Element, F: Scalar> {
    cells: &'a [R::Cell],
    leaf: usize,
    name: &'static str,
    project: fn(&R::Cell) -> &F::Cell,
    shadow: Option<&'a GlobalShadow>,
    /// The buffer's [`Global::plain`].
    plain: bool,
}

impl<R: Element, F: Scalar> Clone for Field<'_, R, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R: Element, F: Scalar> Copy for Field<'_, R, F> {}

impl<R: Element, F: Scalar> Field<'_, R, F> {
    /// Number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.cells.len()
    }
    /// Whether there are no elements.
    pub fn is_empty(self) -> bool {
        self.cells.is_empty()
    }
    /// The buffer's [`Global::plain`].
    #[inline(always)]
    pub fn plain(self) -> bool {
        self.plain
    }
    /// Whether accesses need not be recorded for race detection.
    #[inline(always)]
    pub fn unshadowed(self) -> bool {
        self.shadow.is_none()
    }
    /// Whether `i` is an element (a straight loop's first pass checks every index).
    #[inline(always)]
    pub fn holds(self, i: usize) -> bool {
        i < self.cells.len()
    }
    /// Reads the field of element `i` atomically, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`Global::load_unchecked`].
    #[inline(always)]
    pub unsafe fn load_unchecked(self, i: usize) -> F {
        debug_assert!(i < self.cells.len());
        // SAFETY: the caller guarantees `i` is in range.
        F::load((self.project)(unsafe { self.cells.get_unchecked(i) }))
    }
    /// Writes the field of element `i` atomically, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`Global::load_unchecked`].
    #[inline(always)]
    pub unsafe fn store_unchecked(self, i: usize, v: F) {
        debug_assert!(i < self.cells.len());
        // SAFETY: the caller guarantees `i` is in range.
        F::store((self.project)(unsafe { self.cells.get_unchecked(i) }), v);
    }
    /// Reads the field of element `i` with a plain load, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`Global::load_plain`].
    #[inline(always)]
    pub unsafe fn load_plain(self, i: usize) -> F {
        debug_assert!(self.plain && i < self.cells.len());
        // SAFETY: in range, and no concurrent write (the caller's and `plain`'s guarantees).
        unsafe { F::load_plain((self.project)(self.cells.get_unchecked(i))) }
    }
    /// Writes the field of element `i` with a plain store, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`Global::store_plain`].
    #[inline(always)]
    pub unsafe fn store_plain(self, i: usize, v: F) {
        debug_assert!(self.plain && i < self.cells.len());
        // SAFETY: in range, and no concurrent access (the caller's and `plain`'s guarantees).
        unsafe { F::store_plain((self.project)(self.cells.get_unchecked(i)), v) }
    }
    /// The field's slot in the race shadow: one per scalar of each element.
    #[inline(always)]
    fn slot(self, i: usize) -> usize {
        i * R::LEAVES + self.leaf
    }
    /// Reads the field of element `i`.
    #[inline(always)]
    pub fn load(self, i: usize, loc: &'static Loc) -> Result<F, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.read_slot(self.name, self.slot(i), i, false, loc)?;
                }
                Ok(F::load((self.project)(c)))
            }
            None => Err(self.oob(i, loc)),
        }
    }
    /// Writes the field of element `i`.
    #[inline(always)]
    pub fn store(self, i: usize, v: F, loc: &'static Loc) -> Result<(), Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write_slot(self.name, self.slot(i), i, false, loc)?;
                }
                F::store((self.project)(c), v);
                Ok(())
            }
            None => Err(self.oob(i, loc)),
        }
    }
    /// Atomically replaces the field of element `i` with `f(old)`; returns the old value.
    #[inline(always)]
    pub fn rmw(self, i: usize, f: impl Fn(F) -> F, loc: &'static Loc) -> Result<F, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write_slot(self.name, self.slot(i), i, true, loc)?;
                }
                Ok(F::rmw((self.project)(c), f))
            }
            None => Err(self.oob(i, loc)),
        }
    }
    #[cold]
    fn oob(self, i: usize, loc: &'static Loc) -> Fault {
        Fault::OutOfBounds {
            array: self.name,
            index: i as u64,
            len: self.cells.len() as u64,
            loc,
        }
    }
}

/// A block's shared array, one or two dimensions. Zero-initialised (CUDA leaves it undefined;
/// a kernel that reads before writing is wrong on the GPU whatever the simulator shows).
pub struct Shared<T: Scalar> {
    cells: Box<[Cell<T>]>,
    rows: usize,
    cols: usize,
    name: &'static str,
    shadow: Option<SharedShadow>,
    /// The asynchronous copies into the array not yet landed, and each thread's count of
    /// committed groups.
    copies: std::cell::RefCell<Copies<T>>,
    /// The warpgroup multiplies reading the array not yet waited for, and each thread's count
    /// of committed groups of them.
    mma: std::cell::RefCell<MmaReads>,
}

impl<T: Scalar> Shared<T> {
    /// A zeroed array with `dims` (outermost first: `[n]` or `[rows, cols]`); with race
    /// detection when `races`.
    pub fn new(dims: &[usize], name: &'static str, races: bool) -> Self {
        let (rows, cols) = shape(dims);
        let cells = (0..rows * cols).map(|_| Cell::new(T::default())).collect();
        let shadow = races.then(|| SharedShadow::new(rows * cols));
        Shared {
            cells,
            rows,
            cols,
            name,
            shadow,
            copies: std::cell::RefCell::default(),
            mma: std::cell::RefCell::default(),
        }
    }
    /// The array as the accessors see it.
    #[inline(always)]
    pub fn view(&self) -> ArrayRef<'_, T> {
        ArrayRef {
            cells: &self.cells,
            rows: self.rows,
            cols: self.cols,
            name: self.name,
            shadow: self.shadow.as_ref(),
        }
    }
    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.cells.len()
    }
    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }
    /// Reads `a[i]` of a one-dimensional array.
    #[inline(always)]
    pub fn load1(&self, i: usize, loc: &'static Loc) -> Result<T, Fault> {
        self.view().load1(i, loc)
    }
    /// Writes `a[i]` of a one-dimensional array.
    #[inline(always)]
    pub fn store1(&self, i: usize, v: T, loc: &'static Loc) -> Result<(), Fault> {
        self.view().store1(i, v, loc)
    }
    /// Replaces `a[i]` with `f(old)` (a block runs on one CPU thread, so this is atomic);
    /// returns the old value.
    #[inline(always)]
    pub fn rmw1(&self, i: usize, f: impl FnOnce(T) -> T, loc: &'static Loc) -> Result<T, Fault> {
        self.view().rmw1(i, f, loc)
    }
    /// Reads `a[r][c]`; each index is checked against its own dimension.
    #[inline(always)]
    pub fn load2(&self, r: usize, c: usize, loc: &'static Loc) -> Result<T, Fault> {
        self.view().load2(r, c, loc)
    }
    /// Whether accesses need not be recorded for race detection.
    #[inline(always)]
    pub fn unshadowed(&self) -> bool {
        self.shadow.is_none()
    }
    /// Writes `a[r][c]`.
    #[inline(always)]
    pub fn store2(&self, r: usize, c: usize, v: T, loc: &'static Loc) -> Result<(), Fault> {
        self.view().store2(r, c, v, loc)
    }
}

/// Rows and columns of `dims` (`[n]` is `n` rows of one).
fn shape(dims: &[usize]) -> (usize, usize) {
    match dims {
        [n] => (*n, 1),
        [r, c] => (*r, *c),
        _ => (0, 0),
    }
}

/// The local arrays of one name of every thread of a block, in one allocation (a thread's
/// array is [`LocalArrays::at`] its index): the phase-split code keeps them per thread, and
/// one allocation a block costs what one allocation a thread did 256 times.
pub struct LocalArrays<T: Scalar> {
    cells: Box<[Cell<T>]>,
    rows: usize,
    cols: usize,
    name: &'static str,
}

impl<T: Scalar> LocalArrays<T> {
    /// `threads` zeroed arrays with `dims` each.
    pub fn new(threads: usize, dims: &[usize], name: &'static str) -> Self {
        let (rows, cols) = shape(dims);
        let len = threads.saturating_mul(rows * cols);
        LocalArrays {
            cells: (0..len).map(|_| Cell::new(T::default())).collect(),
            rows,
            cols,
            name,
        }
    }
    /// Thread `t`'s array (empty past the block's threads).
    #[inline(always)]
    pub fn at(&self, t: usize) -> ArrayRef<'_, T> {
        let len = self.rows * self.cols;
        let cells = self
            .cells
            .get(t.saturating_mul(len)..t.saturating_add(1).saturating_mul(len))
            .unwrap_or(&[]);
        ArrayRef {
            cells,
            rows: self.rows,
            cols: self.cols,
            name: self.name,
            shadow: None,
        }
    }
}

/// A shared array, or one thread's local array, as its accessors see it: bounds-checked, and
/// recorded for race detection where it has a shadow.
#[derive(Clone, Copy)]
pub struct ArrayRef<'a, T: Scalar> {
    cells: &'a [Cell<T>],
    rows: usize,
    cols: usize,
    name: &'static str,
    shadow: Option<&'a SharedShadow>,
}

impl<T: Scalar> ArrayRef<'_, T> {
    /// Element `i` of a thread's array kept in registers (the compiler proved `i` in range;
    /// past the end, the zero of `T`).
    #[inline(always)]
    pub fn get(self, i: usize) -> T {
        debug_assert!(
            i < self.cells.len(),
            "register element {i} of {}",
            self.name
        );
        self.cells.get(i).map_or_else(T::default, Cell::get)
    }
    /// Sets element `i` of a thread's array kept in registers (nothing past the end).
    #[inline(always)]
    pub fn set(self, i: usize, v: T) {
        debug_assert!(
            i < self.cells.len(),
            "register element {i} of {}",
            self.name
        );
        if let Some(c) = self.cells.get(i) {
            c.set(v);
        }
    }
    /// Number of elements.
    #[inline(always)]
    pub fn len(self) -> usize {
        self.cells.len()
    }
    /// Whether there are no elements.
    pub fn is_empty(self) -> bool {
        self.cells.is_empty()
    }
    /// Reads `a[i]` of a one-dimensional array.
    #[inline(always)]
    pub fn load1(self, i: usize, loc: &'static Loc) -> Result<T, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.read(self.name, i, false, loc)?;
                }
                Ok(c.get())
            }
            None => Err(self.oob(i, self.cells.len(), loc)),
        }
    }
    /// Writes `a[i]` of a one-dimensional array.
    #[inline(always)]
    pub fn store1(self, i: usize, v: T, loc: &'static Loc) -> Result<(), Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write(self.name, i, false, loc)?;
                }
                c.set(v);
                Ok(())
            }
            None => Err(self.oob(i, self.cells.len(), loc)),
        }
    }
    /// Replaces `a[i]` with `f(old)` (a block runs on one CPU thread, so this is atomic);
    /// returns the old value.
    #[inline(always)]
    pub fn rmw1(self, i: usize, f: impl FnOnce(T) -> T, loc: &'static Loc) -> Result<T, Fault> {
        match self.cells.get(i) {
            Some(c) => {
                if let Some(sh) = self.shadow {
                    sh.write(self.name, i, true, loc)?;
                }
                let old = c.get();
                c.set(f(old));
                Ok(old)
            }
            None => Err(self.oob(i, self.cells.len(), loc)),
        }
    }
    /// Itself (as [`Shared::view`] for a shared array: generated code writes one form).
    #[inline(always)]
    pub fn view(self) -> Self {
        self
    }
    /// The rows of a two-dimensional array (the length of a one-dimensional one).
    #[inline(always)]
    pub fn rows(self) -> usize {
        self.rows
    }
    /// The columns of a two-dimensional array (1 for a one-dimensional one).
    #[inline(always)]
    pub fn cols(self) -> usize {
        self.cols
    }
    /// Whether `a[i]` is an element of a one-dimensional array (a straight loop's first pass
    /// checks every index).
    #[inline(always)]
    pub fn holds1(self, i: usize) -> bool {
        i < self.cells.len()
    }
    /// Whether `a[r][c]` is an element: each index within its own dimension.
    #[inline(always)]
    pub fn holds2(self, r: usize, c: usize) -> bool {
        r < self.rows && c < self.cols
    }
    /// Reads `a[i]` of a one-dimensional array, unchecked and unrecorded.
    ///
    /// # Safety
    /// [`ArrayRef::holds1`] holds for `i`, and the array has no shadow (or the caller records
    /// the access).
    #[inline(always)]
    pub unsafe fn get1(self, i: usize) -> T {
        debug_assert!(self.holds1(i));
        // SAFETY: the caller guarantees `i` is in range.
        unsafe { self.cells.get_unchecked(i) }.get()
    }
    /// Writes `a[i]` of a one-dimensional array, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`ArrayRef::get1`].
    #[inline(always)]
    pub unsafe fn set1(self, i: usize, v: T) {
        debug_assert!(self.holds1(i));
        // SAFETY: the caller guarantees `i` is in range.
        unsafe { self.cells.get_unchecked(i) }.set(v);
    }
    /// Reads `a[r][c]`, unchecked and unrecorded.
    ///
    /// # Safety
    /// [`ArrayRef::holds2`] holds for `(r, c)`, and the array has no shadow.
    #[inline(always)]
    pub unsafe fn get2(self, r: usize, c: usize) -> T {
        debug_assert!(self.holds2(r, c));
        // SAFETY: `r * cols + c < rows * cols`, the length, by the caller's guarantee.
        unsafe { self.get1(r * self.cols + c) }
    }
    /// Writes `a[r][c]`, unchecked and unrecorded.
    ///
    /// # Safety
    /// As [`ArrayRef::get2`].
    #[inline(always)]
    pub unsafe fn set2(self, r: usize, c: usize, v: T) {
        debug_assert!(self.holds2(r, c));
        // SAFETY: as in `get2`.
        unsafe { self.set1(r * self.cols + c, v) }
    }
    /// Whether accesses need not be recorded for race detection.
    #[inline(always)]
    pub fn unshadowed(self) -> bool {
        self.shadow.is_none()
    }
    #[inline(always)]
    pub(crate) fn flat(self, r: usize, c: usize, loc: &'static Loc) -> Result<usize, Fault> {
        if r >= self.rows {
            return Err(self.oob(r, self.rows, loc));
        }
        if c >= self.cols {
            return Err(self.oob(c, self.cols, loc));
        }
        Ok(r * self.cols + c)
    }
    /// Reads `a[r][c]`; each index is checked against its own dimension.
    #[inline(always)]
    pub fn load2(self, r: usize, c: usize, loc: &'static Loc) -> Result<T, Fault> {
        self.load1(self.flat(r, c, loc)?, loc)
    }
    /// Writes `a[r][c]`.
    #[inline(always)]
    pub fn store2(self, r: usize, c: usize, v: T, loc: &'static Loc) -> Result<(), Fault> {
        self.store1(self.flat(r, c, loc)?, v, loc)
    }
    #[cold]
    fn oob(self, i: usize, len: usize, loc: &'static Loc) -> Fault {
        Fault::OutOfBounds {
            array: self.name,
            index: i as u64,
            len: len as u64,
            loc,
        }
    }
}
