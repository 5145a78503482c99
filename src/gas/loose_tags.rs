//! Loose tags: those game code or an ability adds to an entity
//! directly, counted, not granted by an effect.

use hecs::{Entity, World};

use super::Gas;
use crate::abilities::AbilitySystem;
use crate::effects::TagLog;
use crate::tags::{NotHeld, Tag};

impl Gas {
    /// Where `entity`'s tag changes are told.
    pub(super) fn tag_log(&mut self, entity: Entity) -> TagLog<'_> {
        TagLog {
            trace: &mut self.trace,
            now: self.now,
            entity,
        }
    }

    /// Adds one reference to a loose tag; `saved` marks it as one that a
    /// game's own save of the entity keeps (a chosen style, which a combat
    /// profile stores), listed by
    /// [`AbilitySystem::saved_loose_tags`](crate::AbilitySystem::saved_loose_tags);
    /// a mark of the moment (a chase) is not. A snapshot keeps every loose
    /// tag either way. Returns `true` when the tag became present. A tag the
    /// catalog does not know (another catalog's) is not added, and the
    /// answer is `false`.
    pub fn add_loose_tag(
        &mut self,
        world: &mut World,
        entity: Entity,
        tag: Tag,
        saved: bool,
    ) -> bool {
        if !self.catalog.tags().knows(tag) {
            return false;
        }
        let appeared = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) else {
                return false;
            };
            system.abilities.loose.add(tag, saved);
            self.catch_up(entity, system);
            let before = system.host.tags.tags().has_exact(tag);
            system.host.grant_tag(tag, &mut self.tag_log(entity));
            self.note_touched(entity, system);
            !before
        };
        self.reconcile(world);
        appeared
    }

    /// Releases one reference to a loose tag; `Ok(true)` when it vanished.
    pub fn remove_loose_tag(
        &mut self,
        world: &mut World,
        entity: Entity,
        tag: Tag,
    ) -> Result<bool, NotHeld> {
        let vanished = {
            let Ok(system) = world.query_one_mut::<&mut AbilitySystem>(entity) else {
                return Err(NotHeld(tag));
            };
            self.catch_up(entity, system);
            system.abilities.loose.remove(tag)?;
            system.host.release_tag(tag, &mut self.tag_log(entity))?;
            self.note_touched(entity, system);
            !system.host.tags.tags().has_exact(tag)
        };
        self.reconcile(world);
        Ok(vanished)
    }
}
