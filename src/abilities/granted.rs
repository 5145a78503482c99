//! [`Granted`]: one ability an entity holds, and who grants it.

use serde::{Deserialize, Serialize};

use super::def::AbilityId;

/// A granted ability: by game code, by active effects, or both.
///
/// Eight bytes: whether game code granted it shares one word with the
/// count of the effects that do (every entity reserves room for four of
/// these, and a fighter uses all four). Saved as the four fields it packs
/// ([`SavedGranted`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "SavedGranted", try_from = "SavedGranted")]
pub(crate) struct Granted {
    pub ability: AbilityId,
    /// [`DIRECT`] for a grant by game code, and below it the number of
    /// active, uninhibited effects that grant it.
    grants: u16,
    pub level: u32,
}

/// The bit of [`Granted::grants`] set when game code granted the ability
/// ([`Gas::grant_ability`](crate::Gas::grant_ability)).
const DIRECT: u16 = 1 << 15;

/// The most effects counted as granting one ability: a count that would
/// pass it stays there (no content comes near).
pub(crate) const MAX_GRANTING_EFFECTS: u16 = DIRECT - 1;

impl Granted {
    /// `ability` at `level`, granted by game code.
    pub fn direct(ability: AbilityId, level: u32) -> Self {
        Self {
            ability,
            grants: DIRECT,
            level,
        }
    }

    /// `ability` at `level`, granted by one effect.
    pub fn by_one_effect(ability: AbilityId, level: u32) -> Self {
        Self {
            ability,
            grants: 1,
            level,
        }
    }

    /// Did game code grant it?
    pub fn is_direct(self) -> bool {
        self.grants & DIRECT != 0
    }

    /// Notes whether game code grants it.
    pub fn set_direct(&mut self, direct: bool) {
        self.grants = if direct {
            self.grants | DIRECT
        } else {
            self.grants & !DIRECT
        };
    }

    /// How many active, uninhibited effects grant it.
    pub fn by_effects(self) -> u16 {
        self.grants & !DIRECT
    }

    /// One more effect grants it.
    pub fn add_effect(&mut self) {
        if self.by_effects() < MAX_GRANTING_EFFECTS {
            self.grants += 1;
        }
    }

    /// One effect fewer grants it (none below zero).
    pub fn remove_effect(&mut self) {
        if self.by_effects() > 0 {
            self.grants -= 1;
        }
    }

    /// Does anything still grant it?
    pub fn is_held(self) -> bool {
        self.grants != 0
    }
}

/// A [`Granted`] as saved: the shape it always had.
#[derive(Copy, Clone, Serialize, Deserialize)]
#[serde(rename = "Granted")]
struct SavedGranted {
    ability: AbilityId,
    level: u32,
    direct: bool,
    by_effects: u16,
}

impl From<Granted> for SavedGranted {
    fn from(granted: Granted) -> Self {
        Self {
            ability: granted.ability,
            level: granted.level,
            direct: granted.is_direct(),
            by_effects: granted.by_effects(),
        }
    }
}

/// A saved count of granting effects beyond [`MAX_GRANTING_EFFECTS`]
/// cannot be kept.
impl TryFrom<SavedGranted> for Granted {
    type Error = String;

    fn try_from(saved: SavedGranted) -> Result<Self, String> {
        if saved.by_effects > MAX_GRANTING_EFFECTS {
            return Err(format!(
                "ability #{} is counted as granted by {} effects, more than the {MAX_GRANTING_EFFECTS} kept",
                saved.ability.index(),
                saved.by_effects
            ));
        }
        let mut granted = Self {
            ability: saved.ability,
            grants: saved.by_effects,
            level: saved.level,
        };
        granted.set_direct(saved.direct);
        Ok(granted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grant_is_eight_bytes_and_counts_effects_beside_the_direct_bit() {
        assert_eq!(std::mem::size_of::<Granted>(), 8);
        let mut granted = Granted::by_one_effect(AbilityId::new(3), 2);
        assert!(!granted.is_direct() && granted.is_held());
        granted.set_direct(true);
        granted.add_effect();
        assert_eq!((granted.is_direct(), granted.by_effects()), (true, 2));
        granted.remove_effect();
        granted.remove_effect();
        granted.remove_effect();
        assert_eq!((granted.is_direct(), granted.by_effects()), (true, 0));
        assert!(granted.is_held());
        granted.set_direct(false);
        assert!(!granted.is_held());
        // The count stops short of the direct bit.
        let mut many = Granted::by_one_effect(AbilityId::new(1), 1);
        for _ in 0..MAX_GRANTING_EFFECTS {
            many.add_effect();
        }
        assert_eq!(
            (many.is_direct(), many.by_effects()),
            (false, MAX_GRANTING_EFFECTS)
        );
    }

    /// Saved as the four fields it always had, read back the same; a count
    /// too large to keep is refused by name.
    #[test]
    fn a_grant_saves_as_its_four_fields() {
        let mut granted = Granted::direct(AbilityId::new(4), 7);
        granted.add_effect();
        let text = ron::to_string(&granted).unwrap();
        assert_eq!(text, "(ability:(4),level:7,direct:true,by_effects:1)");
        assert_eq!(ron::from_str::<Granted>(&text).unwrap(), granted);
        let error = ron::from_str::<Granted>("(ability:(4),level:7,direct:false,by_effects:40000)")
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("ability #4 is counted as granted by 40000 effects"),
            "{error}"
        );
    }
}
