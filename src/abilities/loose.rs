//! [`LooseTags`]: the tags an entity holds because game code or an
//! ability added them directly, not because an effect grants them, with
//! the blocks its running abilities hold, which share their room.

use std::borrow::Cow;

use super::blocks::AbilityBlocks;
use crate::tags::{NotHeld, Tag, TagCounts, TagSet};

/// An entity's loose tags, counted, with those of them that belong in a
/// saved game; and the ability tags its running abilities block
/// ([`AbilityBlocks`]).
///
/// Sixteen bytes in every entity, the two pointers the two once were. Most
/// entities hold no loose tag or one kind of it (a fighter's mark of a
/// chase, a chosen style), counted in place; a second kind, or a first
/// block, moves the rest to a box made then and kept, so adding and
/// removing them again allocates nothing. A third of the arena's fighters
/// chase at a time: their mark took a block of 80 bytes from malloc, where
/// it now takes none.
#[derive(Clone, Debug, Default)]
pub(crate) struct LooseTags {
    /// The one kind of loose tag, when the entity holds at most one and
    /// its count fits sixteen bits (a count of zero: none); otherwise
    /// empty, and the loose tags are in `rest`.
    one: One,
    rest: Option<Box<Rest>>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct One {
    tag: Tag,
    count: u16,
    saved: bool,
}

impl Default for One {
    fn default() -> Self {
        Self {
            tag: NO_TAG,
            count: 0,
            saved: false,
        }
    }
}

/// What an empty [`One`] names: a fixed value, so two states that hold the
/// same tags compare alike whatever they held before.
const NO_TAG: Tag = Tag::from_parts(0, 0);

/// The loose tags past one kind, the saved members in a box of their own
/// (made at the first saved one: most loose tags are marks of the moment
/// that a save leaves out), and the ability blocks.
#[derive(Clone, Debug, Default)]
struct Rest {
    counts: TagCounts,
    saved: Option<Box<TagSet>>,
    blocked: AbilityBlocks,
}

static NONE: TagCounts = TagCounts::new();
static NONE_SAVED: TagSet = TagSet::new();
static NO_BLOCKS: AbilityBlocks = AbilityBlocks::new();

impl LooseTags {
    /// Loose tags as they were saved: `counts`, and `saved` (the members
    /// that belong in a saved game), with the blocks as they were saved.
    pub fn from_saved(counts: TagCounts, saved: TagSet, blocked: AbilityBlocks) -> Self {
        let one = match (counts.iter().next(), counts.tags().len(), blocked.any()) {
            // A count of zero stays in the box, for the snapshot's check to
            // refuse, as any count that is not positive is.
            (Some((tag, count)), 1, false) => u16::try_from(count)
                .ok()
                .filter(|&count| count > 0 && saved.iter().all(|t| t == tag))
                .map(|count| One {
                    tag,
                    count,
                    saved: !saved.is_empty(),
                }),
            _ => None,
        };
        if let Some(one) = one {
            return Self { one, rest: None };
        }
        if counts.tags().is_empty() && saved.is_empty() && !blocked.any() {
            return Self::default();
        }
        let saved = (!saved.is_empty()).then(|| Box::new(saved));
        Self {
            one: One::default(),
            rest: Some(Box::new(Rest {
                counts,
                saved,
                blocked,
            })),
        }
    }

    /// Every loose tag, with its count: borrowed, but for one kind held in
    /// place, which comes as counts of its own (made inline, with no
    /// allocation).
    pub fn counts(&self) -> Cow<'_, TagCounts> {
        if self.one.count > 0 {
            return Cow::Owned(TagCounts::one(self.one.tag, u32::from(self.one.count)));
        }
        Cow::Borrowed(self.rest.as_ref().map_or(&NONE, |rest| &rest.counts))
    }

    /// The loose tags that belong in a saved game.
    pub fn saved(&self) -> Cow<'_, TagSet> {
        if self.one.count > 0 && self.one.saved {
            return Cow::Owned(std::iter::once(self.one.tag).collect());
        }
        Cow::Borrowed(
            self.rest
                .as_ref()
                .and_then(|rest| rest.saved.as_deref())
                .unwrap_or(&NONE_SAVED),
        )
    }

    /// Adds one reference to `tag`; `saved` marks it as part of saved
    /// state.
    pub fn add(&mut self, tag: Tag, saved: bool) {
        // In place only while the box holds no loose tag, counted or saved.
        let held_in_place = self.rest.as_ref().is_none_or(|rest| {
            rest.counts.tags().is_empty() && rest.saved.as_ref().is_none_or(|s| s.is_empty())
        });
        if held_in_place {
            if self.one.count == 0 {
                self.one = One {
                    tag,
                    count: 1,
                    saved,
                };
                return;
            }
            if self.one.tag == tag {
                if let Some(count) = self.one.count.checked_add(1) {
                    self.one.count = count;
                    self.one.saved |= saved;
                    return;
                }
            }
            self.move_one_aside();
        }
        let rest = self.rest_mut();
        rest.counts.add(tag);
        if saved {
            rest.saved.get_or_insert_with(Box::default).insert(tag);
        }
    }

    /// Releases one reference to `tag`; when none is left it no longer
    /// belongs in a saved game either. Releasing a tag not held changes
    /// nothing and errs.
    pub fn remove(&mut self, tag: Tag) -> Result<(), NotHeld> {
        if self.one.count > 0 {
            if self.one.tag != tag {
                return Err(NotHeld(tag));
            }
            self.one.count -= 1;
            if self.one.count == 0 {
                self.one = One::default();
            }
            return Ok(());
        }
        let rest = self.rest.as_mut().ok_or(NotHeld(tag))?;
        if rest.counts.remove(tag)? {
            if let Some(saved) = rest.saved.as_mut() {
                saved.remove(tag);
            }
        }
        Ok(())
    }

    /// The tags the running abilities block.
    pub fn blocked(&self) -> &AbilityBlocks {
        self.rest.as_ref().map_or(&NO_BLOCKS, |rest| &rest.blocked)
    }

    /// Blocks `tags` once more (an ability starting); the box is made for
    /// the first block, not for an ability that blocks nothing.
    pub fn add_blocks(&mut self, tags: &TagSet) {
        if !tags.is_empty() {
            self.rest_mut().blocked.add_all(tags);
        }
    }

    /// Releases a block of each of `tags` (an ability ending); all or
    /// nothing.
    pub fn remove_blocks(&mut self, tags: &TagSet) -> Result<(), NotHeld> {
        match &mut self.rest {
            Some(rest) => rest.blocked.remove_all(tags),
            None => AbilityBlocks::new().remove_all(tags),
        }
    }

    /// The box, made if there is none.
    fn rest_mut(&mut self) -> &mut Rest {
        self.rest.get_or_insert_with(Box::default)
    }

    /// Moves the kind held in place into the box, before a second kind
    /// (or a count past sixteen bits) joins it there.
    #[cold]
    fn move_one_aside(&mut self) {
        let one = std::mem::take(&mut self.one);
        let rest = self.rest_mut();
        for _ in 0..one.count {
            rest.counts.add(one.tag);
        }
        if one.saved {
            rest.saved.get_or_insert_with(Box::default).insert(one.tag);
        }
    }

    /// True when the box has been made (a test's view).
    #[cfg(test)]
    fn boxed(&self) -> bool {
        self.rest.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tags::TagRegistry;

    fn tag(index: usize) -> Tag {
        TagRegistry::core().iter().nth(index).unwrap()
    }

    /// One kind of loose tag is held in place, counted; a second kind
    /// moves them all to the box, and a removal that would release a tag
    /// not held changes nothing.
    #[test]
    fn one_kind_is_held_in_place_and_more_in_a_box() {
        assert_eq!(std::mem::size_of::<LooseTags>(), 16);
        assert_eq!(std::mem::size_of::<Rest>(), 72);
        let mut loose = LooseTags::default();
        assert_eq!(loose.remove(tag(3)), Err(NotHeld(tag(3))));
        loose.add(tag(7), false);
        loose.add(tag(7), false);
        assert!(!loose.boxed(), "one kind, in place");
        assert_eq!(loose.counts().count(tag(7)), 2);
        assert!(loose.saved().is_empty());
        assert_eq!(loose.remove(tag(3)), Err(NotHeld(tag(3))));
        assert_eq!(loose.counts().count(tag(7)), 2, "nothing changed");
        loose.add(tag(3), true);
        assert!(loose.boxed(), "a second kind");
        loose.add(tag(3), false);
        loose.add(tag(5), false);
        assert_eq!(loose.counts().count(tag(7)), 2, "moved with its count");
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

    /// A kind held in place keeps whether a save keeps it, leaves no
    /// trace once released, and moves to the box past sixteen bits.
    #[test]
    fn the_kind_in_place_is_saved_released_and_moved_whole() {
        let mut loose = LooseTags::default();
        loose.add(tag(4), false);
        loose.add(tag(4), true);
        assert!(loose.saved().has_exact(tag(4)));
        loose.remove(tag(4)).unwrap();
        loose.remove(tag(4)).unwrap();
        assert!(loose.counts().tags().is_empty() && loose.saved().is_empty());
        assert!(!loose.boxed());
        for _ in 0..=u16::MAX {
            loose.add(tag(4), false);
        }
        assert!(loose.boxed(), "past sixteen bits");
        assert_eq!(loose.counts().count(tag(4)), 65_536);
    }

    /// Read back from its saved parts: one kind in place, more, or any
    /// block, in the box; empty sets take no room.
    #[test]
    fn saved_loose_tags_read_back() {
        let none = LooseTags::from_saved(TagCounts::new(), TagSet::new(), AbilityBlocks::new());
        assert!(!none.boxed() && none.counts().tags().is_empty());
        let mut counts = TagCounts::new();
        counts.add(tag(2));
        counts.add(tag(2));
        let saved: TagSet = std::iter::once(tag(2)).collect();
        let one = LooseTags::from_saved(counts.clone(), saved.clone(), AbilityBlocks::new());
        assert!(!one.boxed());
        assert_eq!(*one.counts(), counts);
        assert_eq!(*one.saved(), saved);
        counts.add(tag(6));
        let two = LooseTags::from_saved(counts.clone(), saved.clone(), AbilityBlocks::new());
        assert!(two.boxed());
        assert_eq!(*two.counts(), counts);
        assert_eq!(*two.saved(), saved);
        let mut blocked = AbilityBlocks::new();
        blocked.add_all(&saved);
        let blocking = LooseTags::from_saved(TagCounts::new(), TagSet::new(), blocked);
        assert!(blocking.boxed() && blocking.blocked().any());

        // A count of zero is kept, for the snapshot's check to refuse.
        let zero = TagCounts::one(tag(2), 1);
        let text = ron::to_string(&zero).unwrap().replace(",1)]", ",0)]");
        let zero: TagCounts = ron::from_str(&text).unwrap();
        let kept = LooseTags::from_saved(zero, TagSet::new(), AbilityBlocks::new());
        assert!(kept.boxed());
        assert!(!kept.counts().is_valid_in(&TagRegistry::core()));
        // Saved members with no count stay with the box's loose tags.
        let mut stray =
            LooseTags::from_saved(TagCounts::new(), saved.clone(), AbilityBlocks::new());
        stray.add(tag(6), true);
        assert!(stray.saved().has_exact(tag(2)) && stray.saved().has_exact(tag(6)));
    }
}
