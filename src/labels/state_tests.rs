use super::*;

fn rec(id: &str, who: &str, cats: &[&str], note: &str, retract: bool) -> LabelRecord {
    LabelRecord {
        id: id.into(),
        categories: cats.iter().map(|c| (*c).to_string()).collect(),
        note: note.into(),
        annotator: who.into(),
        time: String::new(),
        blind: false,
        adjudicator: None,
        retract,
    }
}

#[test]
fn unticking_the_last_category_with_a_note_retracts_and_keeps_the_note() {
    let s = LabelState::Categories {
        categories: vec!["x".into()],
        note: "unsure which side".into(),
    };
    assert_eq!(
        edit(&s, "", Edit::Toggle("x".into())),
        Step::Retract {
            note: "unsure which side".into()
        }
    );
}

#[test]
fn nothing_wrong_asks_before_replacing_categories() {
    let s = LabelState::Categories {
        categories: vec!["x".into()],
        note: String::new(),
    };
    assert_eq!(
        edit(&s, "", Edit::NothingWrong { confirmed: false }),
        Step::Ask(vec!["x".into()])
    );
    assert_eq!(
        edit(&s, "", Edit::NothingWrong { confirmed: true }),
        Step::Write {
            categories: vec![],
            note: String::new()
        }
    );
}

#[test]
fn a_note_without_a_label_is_a_draft_taken_by_the_first_category() {
    assert_eq!(
        edit(&LabelState::None, "", Edit::Note("hm".into())),
        Step::Draft("hm".into())
    );
    assert_eq!(
        edit(&LabelState::None, "hm", Edit::Toggle("x".into())),
        Step::Write {
            categories: vec!["x".into()],
            note: "hm".into()
        }
    );
}

#[test]
fn fold_and_latest_agree_on_retractions_and_relabels() {
    let recs = vec![
        rec("1", "a", &["x"], "", false),
        rec("1", "a", &[], "n", true),
        rec("2", "a", &[], "", false),
        rec("2", "b", &["y"], "", false),
        rec("2", "b", &[], "", true),
        rec("2", "b", &["z"], "", false),
    ];
    let f = fold(&recs);
    assert_eq!(
        f[&("1".into(), "a".into())],
        LabelState::Retracted { note: "n".into() }
    );
    assert_eq!(
        f[&("2".into(), "a".into())],
        LabelState::NothingWrong {
            note: String::new()
        }
    );
    let l = latest(&recs);
    assert_eq!(l.len(), 2);
    assert_eq!(l[&("2".into(), "b".into())].categories, ["z"]);
}
