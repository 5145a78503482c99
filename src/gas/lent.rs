//! [`Lent`]: a shared handle that a call can hold for its length without
//! touching the reference count.
//!
//! The context calls code it holds behind an [`Arc`] (a behaviour on every
//! wake-up, the observers on every delivery) while handing that code
//! `&mut Gas`, so it cannot lend a borrow of its own field: it needs a
//! handle of its own for the length of the call. Cloning the `Arc` for it
//! is a locked read-modify-write, and dropping it another: on x86 each is
//! a full memory fence, of the order of twenty cycles, which stops the
//! loads after it from running ahead (the misses the prefetch stage
//! overlaps at scale among them). A fight wakes a behaviour or delivers
//! observations about 1.6 times an attack: some three locked instructions
//! an attack, 2.4 % of its time (`CHANGELOG.md`, twenty-eighth round).
//!
//! A `Lent` keeps a spare handle beside the shared one and lends the spare
//! out, moving it rather than cloning it; the call gives it back. A call
//! made while the spare is out (code that causes another call of itself)
//! gets a clone, as before, and a handle given back after the shared value
//! was replaced is dropped, so a call always runs what was current when it
//! began and the next one what is current then.

use std::sync::Arc;

/// A shared value and a spare handle on it to lend to calls.
pub(crate) struct Lent<T: ?Sized> {
    shared: Arc<T>,
    /// A second handle on `shared`, while no call holds it.
    spare: Option<Arc<T>>,
}

impl<T: ?Sized> Lent<T> {
    pub(crate) fn new(shared: Arc<T>) -> Self {
        Self {
            spare: Some(Arc::clone(&shared)),
            shared,
        }
    }

    /// The shared value, for reads that hold `&self` throughout.
    pub(crate) fn get(&self) -> &Arc<T> {
        &self.shared
    }

    /// Replaces the shared value; handles lent out before are dropped when
    /// given back.
    pub(crate) fn set(&mut self, shared: Arc<T>) {
        *self = Self::new(shared);
    }

    /// A handle for one call: the spare, moved out, when it is in; a clone
    /// when another call holds it.
    pub(crate) fn lend(&mut self) -> Arc<T> {
        self.spare
            .take()
            .unwrap_or_else(|| Arc::clone(&self.shared))
    }

    /// Takes back a handle [`lend`](Self::lend) gave: kept as the spare when
    /// it is on the current value and none is kept, dropped otherwise.
    pub(crate) fn give_back(&mut self, lent: Arc<T>) {
        if self.spare.is_none() && Arc::ptr_eq(&lent, &self.shared) {
            self.spare = Some(lent);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::Lent;

    /// The shared value and its spare: two handles at rest.
    fn at_rest(value: &Lent<str>) -> usize {
        Arc::strong_count(value.get())
    }

    /// A call's handle is the spare, moved: the count does not change while
    /// it is out, and it is kept again when given back.
    #[test]
    fn a_call_borrows_the_spare_without_a_new_handle() {
        let mut value = Lent::new(Arc::<str>::from("aim"));
        assert_eq!(at_rest(&value), 2);
        let lent = value.lend();
        assert_eq!(Arc::strong_count(&lent), 2, "moved, not cloned");
        assert_eq!(&*lent, "aim");
        value.give_back(lent);
        assert_eq!(at_rest(&value), 2);
        let again = value.lend();
        assert_eq!(Arc::strong_count(&again), 2, "the spare came back");
        value.give_back(again);
    }

    /// A call made while another holds the spare gets a clone; whichever is
    /// given back first becomes the spare and the other is dropped.
    #[test]
    fn a_nested_call_gets_a_clone_and_the_count_settles() {
        let mut value = Lent::new(Arc::<str>::from("aim"));
        let outer = value.lend();
        let inner = value.lend();
        assert!(Arc::ptr_eq(&outer, &inner));
        assert_eq!(Arc::strong_count(&outer), 3);
        value.give_back(inner);
        assert_eq!(at_rest(&value), 3, "the outer call still holds one");
        value.give_back(outer);
        assert_eq!(at_rest(&value), 2);
    }

    /// A value replaced during a call: the call keeps what it began with,
    /// its handle is dropped when given back, and the next call gets the
    /// new value.
    #[test]
    fn a_value_replaced_during_a_call_is_not_handed_back() {
        let mut value = Lent::new(Arc::<str>::from("old"));
        let lent = value.lend();
        value.set(Arc::from("new"));
        assert_eq!(&*lent, "old");
        let old = Arc::downgrade(&lent);
        value.give_back(lent);
        assert!(old.upgrade().is_none(), "nothing holds the old value");
        assert_eq!(at_rest(&value), 2);
        assert_eq!(&*value.lend(), "new");
    }

    /// A value replaced between calls: the next call gets the new one,
    /// not the spare of the old.
    #[test]
    fn a_value_replaced_at_rest_is_what_the_next_call_gets() {
        let mut value = Lent::new(Arc::<str>::from("old"));
        value.set(Arc::from("new"));
        assert_eq!(at_rest(&value), 2);
        assert_eq!(&*value.lend(), "new");
    }
}
