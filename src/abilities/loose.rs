//! [`LooseTags`]: the tags an entity holds because game code or an
//! ability added them directly, not because an effect grants them.

use crate::tags::{NotHeld, Tag, TagCounts, TagSet};

/// An entity's loose tags, counted, with those of them that belong in a
/// saved game.
///
/// Out of line, and only from the first loose tag on: many entities never
/// hold one (a fighter's tags come from effects, but for the mark of a
/// chase and a chosen style), and held inline the two sets would cost
/// every entity 96 bytes of its `AbilitySystem`. An entity that once
/// held a loose tag keeps the room, so adding and removing them
/// allocates once.
#[derive(Clone, Debug, Default)]
pub(crate) struct LooseTags(Option<Box<Held>>);

/// The counts, and the saved members in a box of their own, made at the
/// first saved one: most loose tags are marks of the moment (a chase)
/// that a save leaves out, and without the saved set's 40 bytes inline a
/// third of the arena's fighters hold 64 bytes here, not 96 (a block of
/// 80 from malloc, not 112).
#[derive(Clone, Debug, Default)]
struct Held {
    counts: TagCounts,
    saved: Option<Box<TagSet>>,
}

static NONE: TagCounts = TagCounts::new();
static NONE_SAVED: TagSet = TagSet::new();

impl LooseTags {
    /// Loose tags as they were saved: `counts`, and `saved` (the members
    /// that belong in a saved game).
    pub fn from_saved(counts: TagCounts, saved: TagSet) -> Self {
        if counts.tags().is_empty() && saved.is_empty() {
            return Self::default();
        }
        let saved = (!saved.is_empty()).then(|| Box::new(saved));
        Self(Some(Box::new(Held { counts, saved })))
    }

    /// Every loose tag, with its count.
    pub fn counts(&self) -> &TagCounts {
        self.0.as_ref().map_or(&NONE, |held| &held.counts)
    }

    /// The loose tags that belong in a saved game.
    pub fn saved(&self) -> &TagSet {
        self.0
            .as_ref()
            .and_then(|held| held.saved.as_deref())
            .unwrap_or(&NONE_SAVED)
    }

    /// Adds one reference to `tag`; `saved` marks it as part of saved
    /// state.
    pub fn add(&mut self, tag: Tag, saved: bool) {
        let held = self.0.get_or_insert_with(Box::default);
        held.counts.add(tag);
        if saved {
            held.saved.get_or_insert_with(Box::default).insert(tag);
        }
    }

    /// Releases one reference to `tag`; when none is left it no longer
    /// belongs in a saved game either. Releasing a tag not held changes
    /// nothing and errs.
    pub fn remove(&mut self, tag: Tag) -> Result<(), NotHeld> {
        let held = self.0.as_mut().ok_or(NotHeld(tag))?;
        if held.counts.remove(tag)? {
            if let Some(saved) = held.saved.as_mut() {
                saved.remove(tag);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::TagRegistry;

    fn tag(index: usize) -> Tag {
        TagRegistry::core().iter().nth(index).unwrap()
    }

    /// No room is taken until the first loose tag; a removal that would
    /// release a tag not held changes nothing.
    #[test]
    fn loose_tags_take_room_only_once_held() {
        let mut loose = LooseTags::default();
        assert!(loose.0.is_none());
        assert_eq!(loose.remove(tag(3)), Err(NotHeld(tag(3))));
        assert!(loose.0.is_none(), "a refused removal allocates nothing");
        loose.add(tag(7), false);
        let held = loose.0.as_ref().expect("room from the first loose tag");
        assert!(held.saved.is_none(), "no saved set before a saved tag");
        assert_eq!(std::mem::size_of::<Held>(), 64);
        assert!(loose.saved().is_empty());
        loose.add(tag(3), true);
        loose.add(tag(3), false);
        loose.add(tag(5), false);
        assert_eq!(loose.counts().count(tag(3)), 2);
        assert!(loose.saved().has_exact(tag(3)));
        assert!(!loose.saved().has_exact(tag(5)));
        loose.remove(tag(3)).unwrap();
        assert!(loose.saved().has_exact(tag(3)), "one reference is left");
        loose.remove(tag(3)).unwrap();
        assert_eq!(loose.counts().count(tag(3)), 0);
        assert!(!loose.saved().has_exact(tag(3)), "gone, so not saved");
        assert_eq!(loose.remove(tag(3)), Err(NotHeld(tag(3))));
        assert_eq!(loose.counts().count(tag(5)), 1);
    }

    /// Read back from its saved parts, empty sets take no room.
    #[test]
    fn saved_loose_tags_read_back() {
        assert!(LooseTags::from_saved(TagCounts::new(), TagSet::new())
            .0
            .is_none());
        let mut counts = TagCounts::new();
        counts.add(tag(2));
        let mut saved = TagSet::new();
        saved.insert(tag(2));
        let loose = LooseTags::from_saved(counts.clone(), saved.clone());
        assert_eq!(loose.counts(), &counts);
        assert_eq!(loose.saved(), &saved);
    }
}
