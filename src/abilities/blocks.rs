//! [`AbilityBlocks`]: the ability tags an entity's running abilities block,
//! counted, kept out of line.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::tags::{NotHeld, Tag, TagCounts, TagRegistry, TagSet};

/// `block_abilities_with_tags` of an entity's running abilities, counted.
///
/// Most entities never run an ability that blocks others, yet every entity
/// carries this: so the counts live behind a box (8 bytes in the entity
/// instead of 56), allocated by the first block and kept from then on, so an
/// ability that blocks on every activation allocates once, not every time.
/// Saved as the counts themselves (empty when nothing ever blocked), the
/// shape it had as a plain [`TagCounts`].
#[derive(Clone, Debug, Default)]
pub(crate) struct AbilityBlocks(Option<Box<TagCounts>>);

impl AbilityBlocks {
    /// None.
    pub const fn new() -> Self {
        Self(None)
    }

    /// True when some running ability blocks a tag.
    pub fn any(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|counts| !counts.tags().is_empty())
    }

    /// True when some running ability blocks one of `ability_tags`: a
    /// blocked tag is one of them or a parent of one (blocking
    /// `Ability.Work` blocks an ability tagged `Ability.Work.Field`, not
    /// the other way round), the way `cancel_abilities_with_tags` matches.
    pub fn blocks_any(&self, ability_tags: &TagSet) -> bool {
        self.0
            .as_ref()
            .is_some_and(|counts| ability_tags.has_any(counts.tags()))
    }

    /// Adds one reference to every tag of `tags` (an ability starting).
    pub fn add_all(&mut self, tags: &TagSet) {
        if !tags.is_empty() {
            self.0.get_or_insert_default().add_all(tags);
        }
    }

    /// Releases one reference to every tag of `tags` (an ability ending);
    /// all or nothing.
    pub fn remove_all(&mut self, tags: &TagSet) -> Result<(), NotHeld> {
        let Some(first) = tags.iter().next() else {
            return Ok(());
        };
        match &mut self.0 {
            Some(counts) => counts.remove_each(tags, |_| {}),
            None => Err(NotHeld(first)),
        }
    }

    /// Each blocked tag with its count, in tag order.
    pub fn iter(&self) -> impl Iterator<Item = (Tag, u32)> + '_ {
        self.0.iter().flat_map(|counts| counts.iter())
    }

    /// True when every tag is one of `registry`'s and every count positive.
    pub fn is_valid_in(&self, registry: &TagRegistry) -> bool {
        self.0
            .as_ref()
            .is_none_or(|counts| counts.is_valid_in(registry))
    }
}

impl Serialize for AbilityBlocks {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Some(counts) => counts.serialize(serializer),
            None => TagCounts::new().serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for AbilityBlocks {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let counts = TagCounts::deserialize(deserializer)?;
        Ok(Self((!counts.tags().is_empty()).then(|| Box::new(counts))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_counted_out_of_line_and_saved_as_plain_counts() {
        assert_eq!(std::mem::size_of::<AbilityBlocks>(), 8);
        let registry = TagRegistry::core();
        // Leaves: none is under another, so only a tag itself blocks here.
        let t: Vec<Tag> = registry.iter().filter(|t| t.is_leaf()).take(3).collect();
        let set = |tags: &[Tag]| tags.iter().copied().collect::<TagSet>();
        let mut blocks = AbilityBlocks::default();
        let empty = ron::to_string(&blocks).unwrap();
        assert_eq!(empty, ron::to_string(&TagCounts::new()).unwrap());
        assert_eq!(blocks.remove_all(&set(&[t[0]])), Err(NotHeld(t[0])));
        assert_eq!(blocks.remove_all(&TagSet::new()), Ok(()));

        blocks.add_all(&set(&[t[0], t[1]]));
        blocks.add_all(&set(&[t[1]]));
        assert!(blocks.blocks_any(&set(&[t[1], t[2]])));
        assert!(!blocks.blocks_any(&set(&[t[2]])));
        let mut counts = TagCounts::new();
        counts.add_all(&set(&[t[0], t[1]]));
        counts.add_all(&set(&[t[1]]));
        assert_eq!(
            ron::to_string(&blocks).unwrap(),
            ron::to_string(&counts).unwrap()
        );
        let read: AbilityBlocks = ron::from_str(&ron::to_string(&blocks).unwrap()).unwrap();
        assert!(read.iter().eq(blocks.iter()));

        // All or nothing: a tag not held changes nothing.
        assert_eq!(blocks.remove_all(&set(&[t[0], t[2]])), Err(NotHeld(t[2])));
        assert_eq!(blocks.iter().collect::<Vec<_>>(), [(t[0], 1), (t[1], 2)]);
        blocks.remove_all(&set(&[t[0], t[1]])).unwrap();
        blocks.remove_all(&set(&[t[1]])).unwrap();
        assert!(!blocks.blocks_any(&set(&[t[0], t[1]])));
        assert_eq!(ron::to_string(&blocks).unwrap(), empty);
    }
}
