//! [`RefCounts`]: the reference counts of a [`TagCounts`](super::TagCounts),
//! in the order of its present set, in 16 bytes.

/// Counts a list keeps inline: the present set's own inline room.
const INLINE: usize = 6;

/// One positive count per member of the owning set, in its order; the
/// set's length is the list's (so the list keeps none of its own).
///
/// Inline in sixteen bits each while there are at most six and each is
/// below 65 536, which is every entity's owned tags in practice (a
/// fighter holds four or five, each from one or two sources); on the
/// heap in 32 bits once either is passed, for good, so a host that
/// spilled once allocates no more. Inline, a list of six `u32` with its
/// length took 32 bytes, and every entity holds one for its owned tags.
#[derive(Clone, Debug)]
pub(super) enum RefCounts {
    /// The first `len` are the counts; the rest are zero.
    Inline([u16; INLINE]),
    /// Exactly one count a member. Boxed: a bare vector's three words
    /// would make every list 32 bytes again.
    #[allow(clippy::box_collection)]
    Spilled(Box<Vec<u32>>),
}

impl Default for RefCounts {
    fn default() -> Self {
        Self::new()
    }
}

impl RefCounts {
    /// No counts.
    pub const fn new() -> Self {
        Self::Inline([0; INLINE])
    }

    /// The counts `values` (one a member), inline if they fit.
    pub fn from_values(values: &[u32]) -> Self {
        let mut inline = [0; INLINE];
        if values.len() <= INLINE {
            let fits = values
                .iter()
                .zip(&mut inline)
                .all(|(&value, slot)| u16::try_from(value).map(|v| *slot = v).is_ok());
            if fits {
                return Self::Inline(inline);
            }
        }
        Self::Spilled(Box::new(values.to_vec()))
    }

    /// The count at `at`.
    #[inline]
    pub fn get(&self, at: usize) -> u32 {
        match self {
            Self::Inline(counts) => u32::from(counts[at]),
            Self::Spilled(counts) => counts[at],
        }
    }

    /// One more at `at` (of `len`).
    #[inline]
    pub fn increment(&mut self, at: usize, len: usize) {
        if let Self::Inline(counts) = self {
            if let Some(more) = counts[at].checked_add(1) {
                counts[at] = more;
                return;
            }
            self.spill(len);
        }
        if let Self::Spilled(counts) = self {
            counts[at] = counts[at].saturating_add(1);
        }
    }

    /// One fewer at `at` (a positive count); returns the new count.
    #[inline]
    pub fn decrement(&mut self, at: usize) -> u32 {
        match self {
            Self::Inline(counts) => {
                counts[at] -= 1;
                u32::from(counts[at])
            }
            Self::Spilled(counts) => {
                counts[at] -= 1;
                counts[at]
            }
        }
    }

    /// A count of one for a member inserted at `at`, the list holding
    /// `len` before.
    pub fn insert_one(&mut self, at: usize, len: usize) {
        if let Self::Inline(counts) = self {
            if len < INLINE {
                counts.copy_within(at..len, at + 1);
                counts[at] = 1;
                return;
            }
            self.spill(len);
        }
        if let Self::Spilled(counts) = self {
            counts.insert(at, 1);
        }
    }

    /// Drops the count at `at`, the list holding `len` before.
    pub fn remove(&mut self, at: usize, len: usize) {
        match self {
            Self::Inline(counts) => {
                counts.copy_within(at + 1..len, at);
                counts[len - 1] = 0;
            }
            Self::Spilled(counts) => {
                counts.remove(at);
            }
        }
    }

    /// True when the list holds one count for each of `len` members.
    pub fn holds(&self, len: usize) -> bool {
        match self {
            Self::Inline(counts) => len <= INLINE && counts[len..].iter().all(|&n| n == 0),
            Self::Spilled(counts) => counts.len() == len,
        }
    }

    /// Moves the `len` counts to the heap, in 32 bits.
    #[cold]
    fn spill(&mut self, len: usize) {
        let values: Vec<u32> = (0..len).map(|at| self.get(at)).collect();
        *self = Self::Spilled(Box::new(values));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(counts: &RefCounts, len: usize) -> Vec<u32> {
        (0..len).map(|at| counts.get(at)).collect()
    }

    /// Sixteen bytes; inline while six counts below 65 536 fit, on the
    /// heap once a seventh member or a larger count comes, with every
    /// count kept and in order.
    #[test]
    fn counts_stay_inline_until_a_seventh_or_a_large_one() {
        assert_eq!(std::mem::size_of::<RefCounts>(), 16);
        let mut counts = RefCounts::new();
        for len in 0..6 {
            counts.insert_one(0, len);
        }
        counts.increment(2, 6);
        assert!(matches!(counts, RefCounts::Inline(_)));
        assert_eq!(values(&counts, 6), [1, 1, 2, 1, 1, 1]);
        counts.insert_one(6, 6);
        assert!(matches!(counts, RefCounts::Spilled(_)), "a seventh");
        assert_eq!(values(&counts, 7), [1, 1, 2, 1, 1, 1, 1]);
        assert!(counts.holds(7) && !counts.holds(6));

        let mut large = RefCounts::from_values(&[3, u32::from(u16::MAX)]);
        assert!(matches!(large, RefCounts::Inline(_)));
        large.increment(1, 2);
        assert!(matches!(large, RefCounts::Spilled(_)), "past 16 bits");
        assert_eq!(values(&large, 2), [3, 65_536]);
        assert_eq!(large.decrement(1), 65_535);
        assert!(matches!(large, RefCounts::Spilled(_)), "the room is kept");
    }

    /// A removal closes the gap and leaves the inline tail zero, so two
    /// lists of the same counts hold the same bytes.
    #[test]
    fn removals_close_the_gap() {
        let mut counts = RefCounts::from_values(&[4, 5, 6]);
        counts.remove(0, 3);
        assert_eq!(values(&counts, 3), [5, 6, 0], "the tail is zero");
        assert!(counts.holds(2));
        assert!(!RefCounts::from_values(&[1; 7]).holds(6));
        counts.insert_one(1, 2);
        assert_eq!(values(&counts, 3), [5, 1, 6]);
        assert_eq!(counts.decrement(0), 4);
        let mut spilled = RefCounts::from_values(&[1; 7]);
        spilled.remove(3, 7);
        assert_eq!(values(&spilled, 6), [1; 6]);
        assert!(spilled.holds(6));
    }
}
