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
    /// Application order, for "newest override wins".
    pub seq: u64,
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
/// it or not, 32 bytes a modifier. An entity that holds more moves them
/// to the heap once and keeps that room.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Modifiers {
    entries: SmallVec<[ModEntry; 1]>,
    next_seq: u64,
}

impl Modifiers {
    /// True when every modifier names an attribute below `count` and has a
    /// finite value, the modifiers are in their canonical order (each
    /// attribute's one run, which the accumulation reads), and every one
    /// was numbered before the next number to give (the newest override
    /// wins by it).
    pub(crate) fn is_valid(&self, count: usize) -> bool {
        self.entries
            .iter()
            .all(|e| e.attribute.index() < count && e.value.is_finite() && e.seq < self.next_seq)
            && self
                .entries
                .windows(2)
                .all(|pair| pair[0].canonical_cmp(&pair[1]) != Ordering::Greater)
    }

    pub fn insert(&mut self, attribute: AttributeId, op: ModOp, value: f64, source: SourceId) {
        let entry = ModEntry {
            attribute,
            op,
            value,
            source,
            seq: self.next_seq,
        };
        self.next_seq += 1;
        let at = self
            .entries
            .partition_point(|e| e.canonical_cmp(&entry) == Ordering::Less);
        self.entries.insert(at, entry);
    }

    /// Replaces `source`'s modifiers with `new`, which keep the application
    /// order the source's modifiers had (new ones from a source that held
    /// none come last): a restack or a refreshed live magnitude changes
    /// values, not when the effect was applied, so an override keeps its
    /// place among the others. Calls `touched` for every attribute it held
    /// or holds now (a repeat is possible).
    pub fn replace_source(
        &mut self,
        source: SourceId,
        new: &[(AttributeId, ModOp, f64)],
        mut touched: impl FnMut(AttributeId),
    ) {
        let first = self
            .entries
            .iter()
            .filter(|e| e.source == source)
            .map(|e| e.seq)
            .min();
        self.remove_source(source, &mut touched);
        let first = first.unwrap_or(self.next_seq);
        for (i, &(attribute, op, value)) in new.iter().enumerate() {
            let entry = ModEntry {
                attribute,
                op,
                value,
                source,
                seq: first + i as u64,
            };
            self.next_seq = self.next_seq.max(entry.seq + 1);
            let at = self
                .entries
                .partition_point(|e| e.canonical_cmp(&entry) == Ordering::Less);
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
