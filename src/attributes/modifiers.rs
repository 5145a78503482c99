//! Active modifiers of one entity, kept in a canonical order.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::schema::AttributeId;

/// How a modifier combines with the others on its attribute.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ModOp {
    /// Absolute units, summed: `+14.40` damage.
    Flat,
    /// Percentage points as a fraction (`0.15` = +15 pp), summed, then
    /// clamped once to `[0, cap]`.
    Points,
    /// A factor, multiplied: `×1.30`.
    Mult,
    /// Replaces the result; the most recently applied override wins.
    Override,
}

impl ModOp {
    /// The magnitude `stacks` stacks of a modifier of `magnitude` apply as
    /// one: the sum for `Flat` and `Points`, the factor's excess over one
    /// for `Mult` (×1.2 at three stacks is ×1.6, a slow of ×0.9 is ×0.7),
    /// and the value itself for `Override`. Unreal's rule for stacked
    /// modifiers.
    #[inline]
    pub fn stacked(self, magnitude: f64, stacks: u32) -> f64 {
        let stacks = f64::from(stacks);
        match self {
            ModOp::Flat | ModOp::Points => magnitude * stacks,
            ModOp::Mult => (magnitude - 1.0) * stacks + 1.0,
            ModOp::Override => magnitude,
        }
    }
}

/// Who applied a modifier: an active effect, or any label the caller picks.
/// Opaque to the attribute layer; the breakdown reports it back.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct SourceId(pub u64);

/// One active modifier.
#[derive(Copy, Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct ModEntry {
    pub attribute: AttributeId,
    pub op: ModOp,
    pub value: f64,
    pub source: SourceId,
    /// Application order, for "newest override wins": only the order of
    /// the modifiers held matters, so a new one is numbered after the
    /// newest held (see [`Modifiers::next_number`]).
    pub seq: u32,
}

impl ModEntry {
    /// The canonical order: by attribute, then operation, then value (total
    /// order), then source. Sums and products are taken in this order, so a
    /// result never depends on the order modifiers were applied in.
    /// Overrides order by application instead, newest last.
    fn canonical_cmp(&self, other: &Self) -> Ordering {
        self.attribute
            .cmp(&other.attribute)
            .then(self.op.cmp(&other.op))
            .then_with(|| {
                if self.op == ModOp::Override {
                    self.seq.cmp(&other.seq)
                } else {
                    self.value
                        .total_cmp(&other.value)
                        .then(self.source.cmp(&other.source))
                        .then(self.seq.cmp(&other.seq))
                }
            })
    }
}

/// The three accumulators and the override of one attribute.
#[derive(Copy, Clone, Debug, PartialEq)]
pub(crate) struct Accumulated {
    pub flat: f64,
    /// Unclamped sum of percentage points.
    pub points: f64,
    pub mult: f64,
    pub override_value: Option<f64>,
}

/// Every active modifier of an entity, sorted canonically so that each
/// attribute's modifiers are one contiguous run.
///
/// One lives inline: most entities hold none or one (a buff, the arena's
/// endurance), and every entity pays for the inline room whether it uses
/// it or not, 24 bytes a modifier. An entity that holds more moves them
/// to the heap once and keeps that room.
///
/// No counter of applications is kept: a modifier's number only orders
/// it among those held, so the next is the newest held's plus one, read
/// from the entries (an entity holds few). Without the counter, and with
/// numbers of four bytes, the store is 32 bytes rather than 48, in every
/// entity. Numbers that would pass `u32::MAX` are first renumbered from
/// zero in the same order, which no result can tell apart. No two
/// sources' modifiers share a number (see
/// [`replace_source`](Self::replace_source)), so the order of two
/// sources' overrides never rests on a tie.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Modifiers {
    entries: SmallVec<[ModEntry; 1]>,
}

impl Modifiers {
    /// True when every modifier names an attribute below `count` and has a
    /// finite value, and the modifiers are in their canonical order (each
    /// attribute's one run, which the accumulation reads; overrides by
    /// their numbers, so the newest wins).
    pub(crate) fn is_valid(&self, count: usize) -> bool {
        self.entries
            .iter()
            .all(|e| e.attribute.index() < count && e.value.is_finite())
            && self
                .entries
                .windows(2)
                .all(|pair| pair[0].canonical_cmp(&pair[1]) != Ordering::Greater)
    }

    /// The number a modifier applied now takes: after the newest held.
    /// Renumbers the held ones first when the next would not fit.
    fn next_number(&mut self) -> u32 {
        let newest = self.entries.iter().map(|e| e.seq).max();
        match newest {
            None => 0,
            Some(newest) => newest.checked_add(1).unwrap_or_else(|| {
                self.renumber();
                // Ranks from zero: fewer than the entries, so below the max.
                u32::try_from(self.entries.len()).unwrap_or(u32::MAX)
            }),
        }
    }

    /// Numbers the held modifiers from zero, in the order their numbers
    /// had (modifiers that shared a number share one still), so the
    /// canonical order, which reads numbers only to compare them, is
    /// unchanged.
    fn renumber(&mut self) {
        let mut numbers: SmallVec<[u32; 8]> = self.entries.iter().map(|e| e.seq).collect();
        numbers.sort_unstable();
        numbers.dedup();
        for entry in &mut self.entries {
            let rank = numbers.binary_search(&entry.seq).unwrap_or_default();
            entry.seq = u32::try_from(rank).expect("an entity holds fewer than 2^32 modifiers");
        }
    }

    pub fn insert(&mut self, attribute: AttributeId, op: ModOp, value: f64, source: SourceId) {
        let entry = ModEntry {
            attribute,
            op,
            value,
            source,
            seq: self.next_number(),
        };
        let at = self
            .entries
            .partition_point(|e| e.canonical_cmp(&entry) == Ordering::Less);
        self.entries.insert(at, entry);
    }

    /// Replaces `source`'s modifiers with `new`, which keep the application
    /// order the source's modifiers had (new ones from a source that held
    /// none come last): a restack or a refreshed live magnitude changes
    /// values, not when the effect was applied, so an override keeps its
    /// place among the others. They all take the source's oldest number,
    /// in their order, so none shares a number with another source's,
    /// however many more the source holds now. Calls `touched` for every
    /// attribute it held or holds now (a repeat is possible).
    pub fn replace_source(
        &mut self,
        source: SourceId,
        new: &[(AttributeId, ModOp, f64)],
        mut touched: impl FnMut(AttributeId),
    ) {
        let held = self
            .entries
            .iter()
            .filter(|e| e.source == source)
            .map(|e| e.seq)
            .min();
        let number = match held {
            Some(number) => number,
            None => self.next_number(),
        };
        self.remove_source(source, &mut touched);
        for &(attribute, op, value) in new {
            let entry = ModEntry {
                attribute,
                op,
                value,
                source,
                seq: number,
            };
            // After its equals: the source's own, placed before it, so
            // the list's order stands (the later of two overrides wins).
            let at = self
                .entries
                .partition_point(|e| e.canonical_cmp(&entry) != Ordering::Greater);
            self.entries.insert(at, entry);
            touched(attribute);
        }
    }

    /// Removes every modifier from `source`; calls `touched` once per
    /// affected attribute (in attribute order).
    pub fn remove_source(&mut self, source: SourceId, mut touched: impl FnMut(AttributeId)) {
        let mut last: Option<AttributeId> = None;
        self.entries.retain(|e| {
            if e.source != source {
                return true;
            }
            if last != Some(e.attribute) {
                touched(e.attribute);
                last = Some(e.attribute);
            }
            false
        });
    }

    /// The run of modifiers on `attribute`.
    #[inline]
    pub fn of(&self, attribute: AttributeId) -> &[ModEntry] {
        let start = self.entries.partition_point(|e| e.attribute < attribute);
        let len = self.entries[start..].partition_point(|e| e.attribute == attribute);
        &self.entries[start..start + len]
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Sums the accumulators of one attribute's run, in canonical order.
#[inline]
pub(crate) fn accumulate<'a>(run: impl IntoIterator<Item = &'a ModEntry>) -> Accumulated {
    let mut acc = Accumulated {
        flat: 0.0,
        points: 0.0,
        mult: 1.0,
        override_value: None,
    };
    for entry in run {
        match entry.op {
            ModOp::Flat => acc.flat += entry.value,
            ModOp::Points => acc.points += entry.value,
            ModOp::Mult => acc.mult *= entry.value,
            // Overrides sort oldest first, so the last one seen is the newest.
            ModOp::Override => acc.override_value = Some(entry.value),
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overriding(modifiers: &Modifiers, attribute: AttributeId) -> Option<f64> {
        accumulate(modifiers.of(attribute)).override_value
    }

    /// Every entity keeps one modifier inline: 24 bytes, and the store 32.
    #[test]
    fn the_store_of_one_modifier_is_32_bytes() {
        assert_eq!(std::mem::size_of::<ModEntry>(), 24);
        assert_eq!(std::mem::size_of::<Modifiers>(), 32);
    }

    /// A new modifier is numbered after the newest held; when the numbers
    /// run out, the held ones are renumbered in their order first, so the
    /// newest override still wins, before and after the oldest ends.
    #[test]
    fn numbers_that_run_out_are_renumbered_in_order() {
        let health = AttributeId::new(0);
        let mut modifiers = Modifiers::default();
        modifiers.insert(health, ModOp::Override, 1.0, SourceId(1));
        modifiers.insert(health, ModOp::Override, 2.0, SourceId(2));
        assert_eq!(overriding(&modifiers, health), Some(2.0));
        modifiers.entries[0].seq = u32::MAX - 1;
        modifiers.entries[1].seq = u32::MAX;
        modifiers.insert(health, ModOp::Override, 3.0, SourceId(3));
        let numbers: Vec<u32> = modifiers.entries.iter().map(|e| e.seq).collect();
        assert_eq!(numbers, [0, 1, 2]);
        assert!(modifiers.is_valid(1));
        assert_eq!(overriding(&modifiers, health), Some(3.0));
        modifiers.remove_source(SourceId(3), |_| {});
        assert_eq!(overriding(&modifiers, health), Some(2.0));
        modifiers.remove_source(SourceId(2), |_| {});
        assert_eq!(overriding(&modifiers, health), Some(1.0));
    }

    /// A source's replaced modifiers keep its place in the order however
    /// many more it holds now, and take no other source's number: after a
    /// gap closes (B's), the override applied after A's stays newest.
    #[test]
    fn a_replacement_keeps_its_place_and_takes_no_other_number() {
        let health = AttributeId::new(0);
        let (a, b, c) = (SourceId(1), SourceId(2), SourceId(3));
        let mut modifiers = Modifiers::default();
        modifiers.insert(health, ModOp::Override, 1.0, a);
        modifiers.insert(health, ModOp::Override, 2.0, b);
        modifiers.remove_source(b, |_| {});
        modifiers.insert(health, ModOp::Override, 3.0, c);
        let two = [
            (health, ModOp::Override, 4.0),
            (health, ModOp::Override, 5.0),
        ];
        modifiers.replace_source(a, &two, |_| {});
        assert_eq!(
            overriding(&modifiers, health),
            Some(3.0),
            "C is newer than A"
        );
        modifiers.replace_source(c, &[(health, ModOp::Override, 6.0)], |_| {});
        assert_eq!(overriding(&modifiers, health), Some(6.0), "and stays so");
        modifiers.remove_source(c, |_| {});
        assert_eq!(overriding(&modifiers, health), Some(5.0), "A's last wins");

        // A source that held none comes last, renumbering when it must.
        modifiers.entries.iter_mut().for_each(|e| e.seq = u32::MAX);
        modifiers.replace_source(SourceId(4), &[(health, ModOp::Override, 7.0)], |_| {});
        assert_eq!(overriding(&modifiers, health), Some(7.0));
        assert!(modifiers.is_valid(1));
    }
}
