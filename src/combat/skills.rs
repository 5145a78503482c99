//! [`Skills`]: the five combat skills with XP on the standard OSRS curve.

use serde::{Deserialize, Serialize};

use super::defs::Skill;

/// The highest level.
pub const MAX_LEVEL: u32 = 99;

/// Total XP needed for each level, index *i* for level *i + 1*: the
/// standard OSRS experience table (level 99 at 13 034 431 XP). Written out
/// rather than computed so it is identical on every platform.
pub const XP_TABLE: [u64; MAX_LEVEL as usize] = [
    0, 83, 174, 276, 388, 512, 650, 801, 969, 1_154, 1_358, 1_584, 1_833, 2_107, 2_411, 2_746,
    3_115, 3_523, 3_973, 4_470, 5_018, 5_624, 6_291, 7_028, 7_842, 8_740, 9_730, 10_824, 12_031,
    13_363, 14_833, 16_456, 18_247, 20_224, 22_406, 24_815, 27_473, 30_408, 33_648, 37_224, 41_171,
    45_529, 50_339, 55_649, 61_512, 67_983, 75_127, 83_014, 91_721, 101_333, 111_945, 123_660,
    136_594, 150_872, 166_636, 184_040, 203_254, 224_466, 247_886, 273_742, 302_288, 333_804,
    368_599, 407_015, 449_428, 496_254, 547_953, 605_032, 668_051, 737_627, 814_445, 899_257,
    992_895, 1_096_278, 1_210_421, 1_336_443, 1_475_581, 1_629_200, 1_798_808, 1_986_068,
    2_192_818, 2_421_087, 2_673_114, 2_951_373, 3_258_594, 3_597_792, 3_972_294, 4_385_776,
    4_842_295, 5_346_332, 5_902_831, 6_517_253, 7_195_629, 7_944_614, 8_771_558, 9_684_577,
    10_692_629, 11_805_606, 13_034_431,
];

/// Total XP needed to reach `level` (clamped to 1..=99).
pub fn xp_for_level(level: u32) -> u64 {
    XP_TABLE[(level.clamp(1, MAX_LEVEL) - 1) as usize]
}

/// The level `xp` reaches.
pub fn level_for_xp(xp: u64) -> u32 {
    XP_TABLE.partition_point(|&needed| needed <= xp) as u32
}

/// XP per skill, in whole hundredths (so fractional rates such as 4/3 per
/// damage point add up exactly and deterministically), with the level it
/// reaches.
///
/// Every attack reads two levels (the attacker's weapon skill, the
/// defender's Defense), each a search of the 99-entry XP table if it were
/// derived there; the levels are kept beside the XP instead, set by every
/// change of XP (an XP grant searches the table only when it reaches the
/// next level). They follow from the XP, so only the XP is saved, in the
/// form it always had.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "SavedSkills")]
pub struct Skills {
    centi_xp: [u64; 5],
    /// `level_for_xp` of each skill's XP.
    #[serde(skip_serializing)]
    levels: [u8; 5],
}

/// A saved [`Skills`]: the XP alone.
#[derive(Deserialize)]
#[serde(rename = "Skills")]
struct SavedSkills {
    centi_xp: [u64; 5],
}

impl From<SavedSkills> for Skills {
    fn from(saved: SavedSkills) -> Self {
        let mut skills = Skills::at_zero();
        for &skill in Skill::ALL {
            skills.set_centi_xp(skill, saved.centi_xp[skill.index()]);
        }
        skills
    }
}

impl Default for Skills {
    /// Level 1 everywhere except Hitpoints at 10, as a new OSRS character.
    fn default() -> Self {
        let mut skills = Skills::at_zero();
        skills.set_level(Skill::Hitpoints, 10);
        skills
    }
}

impl Skills {
    /// No XP anywhere: level 1 in every skill.
    fn at_zero() -> Self {
        Skills {
            centi_xp: [0; 5],
            levels: [1; 5],
        }
    }

    /// Every skill at `level`.
    pub fn all_at(level: u32) -> Self {
        let mut skills = Skills::at_zero();
        for &skill in Skill::ALL {
            skills.set_level(skill, level);
        }
        skills
    }

    /// The level of `skill`.
    pub fn level(&self, skill: Skill) -> u32 {
        u32::from(self.levels[skill.index()])
    }

    /// Whole XP in `skill`.
    pub fn xp(&self, skill: Skill) -> u64 {
        self.centi_xp[skill.index()] / 100
    }

    /// XP in `skill` in hundredths.
    pub fn centi_xp(&self, skill: Skill) -> u64 {
        self.centi_xp[skill.index()]
    }

    /// Sets `skill` to exactly the XP of `level`.
    pub fn set_level(&mut self, skill: Skill, level: u32) {
        self.set_centi_xp(skill, xp_for_level(level) * 100);
    }

    /// Sets the XP of `skill` (in hundredths).
    pub fn set_centi_xp(&mut self, skill: Skill, centi_xp: u64) {
        self.centi_xp[skill.index()] = centi_xp;
        self.levels[skill.index()] = level_byte(centi_xp);
    }

    /// Adds XP in hundredths; returns the new level if it went up.
    pub fn add_centi_xp(&mut self, skill: Skill, centi_xp: u64) -> Option<u32> {
        let before = self.level(skill);
        let slot = &mut self.centi_xp[skill.index()];
        *slot = slot.saturating_add(centi_xp);
        // The level goes up exactly when the XP reaches the next level's
        // threshold (none past the last level): below it, as after nearly
        // every hit, the table is not searched.
        let next_level_xp = *XP_TABLE.get(before as usize)?;
        if *slot / 100 < next_level_xp {
            return None;
        }
        let after = level_byte(*slot);
        self.levels[skill.index()] = after;
        Some(u32::from(after))
    }
}

/// The level `centi_xp` hundredths of XP reach, as kept.
fn level_byte(centi_xp: u64) -> u8 {
    // At most `MAX_LEVEL`, which a byte holds.
    level_for_xp(centi_xp / 100) as u8
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_curve_matches_osrs() {
        assert_eq!(xp_for_level(1), 0);
        assert_eq!(xp_for_level(2), 83);
        assert_eq!(xp_for_level(10), 1_154);
        assert_eq!(xp_for_level(50), 101_333);
        assert_eq!(xp_for_level(92), 6_517_253);
        assert_eq!(xp_for_level(99), 13_034_431);
        assert_eq!(level_for_xp(0), 1);
        assert_eq!(level_for_xp(82), 1);
        assert_eq!(level_for_xp(83), 2);
        assert_eq!(level_for_xp(13_034_430), 98);
        assert_eq!(level_for_xp(u64::MAX), 99);
    }

    #[test]
    fn xp_adds_in_hundredths_and_reports_level_ups() {
        let mut skills = Skills::default();
        assert_eq!(skills.level(Skill::Hitpoints), 10);
        assert_eq!(skills.level(Skill::Melee), 1);
        assert_eq!(skills.add_centi_xp(Skill::Melee, 8_200), None);
        assert_eq!(skills.add_centi_xp(Skill::Melee, 100), Some(2));
        assert_eq!(skills.xp(Skill::Melee), 83);
        // One grant can cross several levels; hundredths short of a level
        // stay below it; the last level goes no higher.
        assert_eq!(
            skills.add_centi_xp(Skill::Melee, 30_000),
            Some(4),
            "83 → 383 XP"
        );
        assert_eq!(skills.add_centi_xp(Skill::Melee, 499), None, "387.99 XP");
        assert_eq!(skills.add_centi_xp(Skill::Melee, 1), Some(5), "388 XP");
        assert_eq!(skills.add_centi_xp(Skill::Melee, u64::MAX), Some(99));
        assert_eq!(skills.add_centi_xp(Skill::Melee, 100), None);
        assert_eq!(skills.level(Skill::Melee), 99);
    }

    /// A grant reports a level-up exactly when the level after it is
    /// higher than before, for grants of every size from every XP.
    #[test]
    fn a_grant_reports_exactly_the_levels_it_gains() {
        let thresholds = XP_TABLE
            .iter()
            .flat_map(|&xp| [xp * 100, (xp * 100).saturating_sub(1)]);
        for start in thresholds.chain([0, 1, 4_700, 1_303_443_100, u64::MAX - 5]) {
            for grant in [
                0,
                1,
                99,
                100,
                101,
                8_300,
                1_000_000,
                1_303_443_100,
                u64::MAX,
            ] {
                let mut skills = Skills::all_at(1);
                skills.set_centi_xp(Skill::Ranged, start);
                let before = skills.level(Skill::Ranged);
                let reported = skills.add_centi_xp(Skill::Ranged, grant);
                let after = skills.level(Skill::Ranged);
                assert_eq!(
                    reported,
                    (after > before).then_some(after),
                    "{start} + {grant}"
                );
                assert_eq!(
                    after,
                    level_for_xp(skills.xp(Skill::Ranged)),
                    "{start} + {grant}"
                );
            }
        }
    }

    /// The kept levels are the table's for the XP, however it was set;
    /// a save holds the XP alone, as it always did, and a load finds the
    /// levels again.
    #[test]
    fn levels_follow_the_xp_and_only_the_xp_is_saved() {
        let mut skills = Skills::default();
        assert_eq!(skills.level(Skill::Hitpoints), 10);
        assert_eq!(skills.level(Skill::Magic), 1);
        skills.set_centi_xp(Skill::Magic, 1_015_400);
        skills.set_level(Skill::Defense, 60);
        skills.set_level(Skill::Melee, 500);
        for &skill in Skill::ALL {
            assert_eq!(
                skills.level(skill),
                level_for_xp(skills.xp(skill)),
                "{skill:?}"
            );
        }
        assert_eq!(
            (skills.level(Skill::Magic), skills.level(Skill::Defense)),
            (27, 60)
        );
        assert_eq!(skills.level(Skill::Melee), MAX_LEVEL);

        let text = ron::to_string(&skills).unwrap();
        assert_eq!(
            text, "(centi_xp:(1303443100,0,1015400,27374200,115400))",
            "the saved form is the XP alone"
        );
        let loaded: Skills = ron::from_str(&text).unwrap();
        assert_eq!(loaded, skills);
        let edited: Skills = ron::from_str("(centi_xp:(0,8300,0,0,99))").unwrap();
        assert_eq!(edited.level(Skill::Ranged), 2);
        assert_eq!(edited.level(Skill::Magic), 1);
    }
}
