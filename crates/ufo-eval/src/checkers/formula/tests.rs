//! The per-cell decisions of docs' parity table (OSWorld's
//! `condition(v, *args)` as observed with formulas 1.3.0).

use super::*;

fn num(n: f64) -> Cv {
    Cv::Num(n)
}

fn text(s: &str) -> Cv {
    Cv::Str(s.to_owned())
}

/// `condition(v, *lists)`: `Ok(active)`, or the stop.
fn run(formula: &str, v: &Cv, lists: &[Vec<Option<Cv>>]) -> Result<bool, Stop> {
    let f = compile(formula).unwrap_or_else(|e| panic!("{formula}: {e}"));
    let mut args = vec![Arg::Value(v)];
    args.extend(lists.iter().map(|l| Arg::List(l)));
    f.truthy(&args)
}

fn active(formula: &str, v: Cv) -> bool {
    run(formula, &v, &[]).unwrap()
}

fn nums(xs: &[f64]) -> Vec<Option<Cv>> {
    xs.iter().map(|x| Some(Cv::Num(*x))).collect()
}

#[test]
fn weekday_rules() {
    assert!(active("WEEKDAY(A2,2)>5", num(45297.0)));
    assert!(active("WEEKDAY(A2,2)>5", num(45298.0)));
    assert!(!active("WEEKDAY(A2,2)>5", num(45299.0)));
    assert!(active("WEEKDAY(A2,2)>5", num(45297.75)));
    assert!(active("WEEKDAY(A2,2)>5", text("Sat")));
    assert!(active("WEEKDAY(A2)=1", num(45298.0)));
    assert!(active("OR(WEEKDAY(A2)=1,WEEKDAY(A2)=7)", num(45297.0)));
    assert!(!active("OR(WEEKDAY(A2)=1,WEEKDAY(A2)=7)", num(45299.0)));
    assert!(active("WEEKDAY(A2,3)>=5", num(45297.0)));
    assert!(active("WEEKDAY(A2,2)>5", num(-1.0)));
    assert!(active("WEEKDAY(A2,2)>5", num(0.0)));
    // A date-like string is refused, not guessed.
    assert!(matches!(
        run("WEEKDAY(A2,2)>5", &text("2024-01-06"), &[]),
        Err(Stop::Refuse(_))
    ));
    // Every return type over a span of serials (formulas' formula).
    for d in 0..400 {
        let x = f64::from(d);
        let excel = |t: i32| -> f64 {
            let w = (d + 6) % 7 + 1; // t=1: Sunday 1 .. Saturday 7
            f64::from(match t {
                1 => w,
                2 => (w + 5) % 7 + 1,
                3 => (w + 5) % 7,
                t => (w - 2 - (t - 11) + 14) % 7 + 1,
            })
        };
        for t in [1, 2, 3, 11, 12, 13, 14, 15, 16, 17] {
            let f = compile(&format!("WEEKDAY(A1,{t})")).unwrap();
            let got = eval::eval(&f.expr, &[Arg::Value(&num(x))]).unwrap();
            assert_eq!(got, eval::FVal::Num(excel(t)), "serial {d} type {t}");
        }
    }
    let f = compile("WEEKDAY(A1,4)").unwrap();
    assert_eq!(
        eval::eval(&f.expr, &[Arg::Value(&num(5.0))]).unwrap(),
        eval::FVal::Err("#NUM!")
    );
}

#[test]
fn mod_and_round() {
    assert!(active("MOD(A2,7)<2", num(45297.0)));
    assert!(!active("MOD(A2,7)<2", num(45299.0)));
    assert_eq!(eval::np_mod(-1.0, 7.0), 6.0);
    assert_eq!(eval::np_mod(1.0, -7.0), -6.0);
    assert!(eval::np_mod(7.0, -7.0).is_sign_negative());
    assert!(active("MOD(A2,0)", num(3.0))); // #DIV/0! is true
    assert!(active("ROUND(A2,0)=3", num(2.5)));
    assert!(active("ROUND(A2,0)=-3", num(-2.5)));
    assert!(active("ROUND(A2,2)=2.68", num(2.675)));
    assert!(active("ROUND(A2,2)=1", num(1.005)));
    assert!(active("ROUND(A2,-1)=20", num(15.0)));
    assert!(active("ABS(A2)>5", num(-6.0)));
    assert!(active("INT(A2)=-2", num(-1.5)));
    // What raises inside a function is #VALUE! (true), as formulas 1.3.0
    // answers: INT/WEEKDAY/LEFT of inf, 0^-1, 10^400, ROUND past floats.
    let value = |f: &str, x: f64| {
        let c = compile(f).unwrap();
        eval::eval(&c.expr, &[Arg::Value(&num(x))]).unwrap()
    };
    let err = eval::FVal::Err("#VALUE!");
    assert_eq!(value("INT(A1)", f64::INFINITY), err);
    assert_eq!(value("WEEKDAY(A1)", f64::INFINITY), err);
    assert_eq!(value("WEEKDAY(5,A1)", f64::INFINITY), err);
    assert_eq!(value("LEFT(\"abc\",A1)", f64::INFINITY), err);
    assert_eq!(value("A1^-1", 0.0), err);
    assert_eq!(value("A1^400", 10.0), err);
    assert_eq!(value("ROUND(A1,10)", 1e308), err);
    assert_eq!(value("ROUND(2.5,A1)", 400.0), err);
    assert_eq!(value("A1*10", 1e308), eval::FVal::Err("#NUM!"));
    assert_eq!(value("ABS(A1)", f64::INFINITY), eval::FVal::Err("#NUM!"));
    // int() truncates: -0.5 is serial 0 (a Saturday), -1 is #NUM!.
    assert_eq!(value("WEEKDAY(A1)", -0.5), eval::FVal::Num(7.0));
    assert_eq!(value("WEEKDAY(A1)", -1.0), eval::FVal::Err("#NUM!"));
    // LARGE indexes values[floor(-k)], SMALL values[floor(k-1)].
    let c = compile("LARGE(A1:A3,A4)").unwrap();
    let list = nums(&[1.0, 5.0, 9.0]);
    let k = num(1.5);
    assert_eq!(
        eval::eval(&c.expr, &[Arg::List(&list), Arg::Value(&k)]).unwrap(),
        eval::FVal::Num(5.0)
    );
    let c = compile("SMALL(A1:A3,A4)").unwrap();
    assert_eq!(
        eval::eval(&c.expr, &[Arg::List(&list), Arg::Value(&k)]).unwrap(),
        eval::FVal::Num(1.0)
    );
}

#[test]
fn aggregates_over_ranges() {
    let range = nums(&[5.0, 12.0, 7.0, 30.0, 2.0, 9.0, 30.0, 1.0, 15.0, 8.0]);
    assert!(
        run(
            "B2=MAX($B$2:$B$11)",
            &num(30.0),
            std::slice::from_ref(&range)
        )
        .unwrap()
    );
    assert!(!run("B2=MAX($B$2:$B$11)", &num(15.0), &[range]).unwrap());
    let mixed = vec![Some(num(5.0)), None, Some(text("Total")), Some(num(30.0))];
    assert!(run("B2=MAX($B$2:$B$11)", &num(30.0), &[mixed]).unwrap());
    assert!(run("B2=MAX($B$2:$B$11)", &num(0.0), &[vec![None, None]]).unwrap());
    let errs = vec![Some(num(5.0)), Some(num(12.0)), Some(text("#DIV/0!"))];
    assert!(run("B2=MAX($B$2:$B$11)", &num(12.0), &[errs]).unwrap());
    assert!(!run("B2=MAX($B$2:$B$11)", &text("abc"), &[nums(&[5.0, 1.0])]).unwrap());
    assert!(run("B2=MIN($B$2:$B$11)", &num(1.0), &[nums(&[5.0, 12.0, 1.0])]).unwrap());
    assert!(
        run(
            "B2>=LARGE($B$2:$B$11,1)",
            &num(12.0),
            &[nums(&[5.0, 12.0, 1.0])]
        )
        .unwrap()
    );
    let holes = vec![Some(num(5.0)), Some(num(12.0)), None];
    assert!(
        run(
            "B2>=LARGE($B$2:$B$11,1)",
            &num(5.0),
            std::slice::from_ref(&holes)
        )
        .unwrap()
    );
    assert!(!run("B2>=LARGE($B$2:$B$11,2)", &num(5.0), &[holes]).unwrap());
    assert!(
        run(
            "B2<=SMALL($B$2:$B$11,1)",
            &num(1.0),
            &[nums(&[5.0, 12.0, 1.0])]
        )
        .unwrap()
    );
    assert!(
        run(
            "B2>AVERAGE($B$2:$B$11)",
            &num(12.0),
            &[nums(&[5.0, 12.0, 1.0])]
        )
        .unwrap()
    );
    let none = vec![None, Some(text("x"))];
    assert!(run("B2>AVERAGE($B$2:$B$11)", &num(1.0), &[none]).unwrap());
    // Numeric text in a range: refused.
    let numeric = vec![Some(num(5.0)), Some(text("10"))];
    assert!(matches!(
        run("B2=MAX($B$2:$B$11)", &num(5.0), &[numeric]),
        Err(Stop::Refuse(_))
    ));
    // Arity: too many or too few inputs is a call error.
    let two = nums(&[1.0, 2.0]);
    assert_eq!(
        run(
            "B2=MAX($B$2:$B$11)+MIN($B$2:$B$11)",
            &num(6.0),
            &[two.clone(), two.clone()]
        ),
        Err(Stop::CallError)
    );
    assert_eq!(run("TRUE", &num(5.0), &[]), Err(Stop::CallError));
    assert_eq!(
        run("MAX($A$1:$A$5)>3", &num(5.0), &[two]),
        Err(Stop::CallError)
    );
    assert_eq!(run("A2>B2", &num(5.0), &[]), Err(Stop::CallError));
    // The sorted inputs put the range first: the scalar would go to it.
    let f = compile("C3=MAX($C$2:$C$11)").unwrap();
    assert_eq!(f.inputs(), ["C2:C11", "C3"]);
    assert!(matches!(
        run("C3=MAX($C$2:$C$11)", &num(42.0), &[nums(&[40.0, 42.0])]),
        Err(Stop::Refuse(_))
    ));
}

#[test]
fn comparisons_and_text() {
    assert!(active("A2>5", num(6.0)));
    assert!(active("A2>5", text("abc")));
    assert!(active("A2>5", text("4")));
    assert!(!active("A2<100", text("abc")));
    assert!(!active("A2=10", text("10")));
    assert!(active("A2=\"abc\"", text("ABC")));
    assert!(!active("A2<>\"\"", text("")));
    assert!(active("A2>0", text("")));
    assert!(!active("A2>TRUE", num(5.0)));
    assert!(!active("1<A2<10", num(5.0)));
    assert!(!active("A2=0.1+0.2", num(0.3)));
    assert!(active("1/(A2-3)>0", num(3.0)));
    assert!(active("NOT(ISERROR(SEARCH(\"ab\",A2)))", text("xABx")));
    assert!(!active("NOT(ISERROR(SEARCH(\"ab\",A2)))", text("xyz")));
    assert!(active("NOT(ISERROR(SEARCH(\".0\",A2)))", num(5.0)));
    assert!(active("ISERROR(SEARCH(\"ab\",A2))", text("xyz")));
    assert!(!active("ISERROR(SEARCH(\"a?c\",A2))", text("xa?cx")));
    assert!(active("LEFT(A2,LEN(\"x\"))=\"x\"", text("Xylophone")));
    assert!(active("RIGHT(A2,LEN(\"z\"))=\"z\"", text("fizz")));
    assert!(!active("ISERROR(A2)", text("#DIV/0!")));
    assert!(active("ISNUMBER(A2)", text("12")));
    assert!(active("ISTEXT(A2)", text("5")));
    assert!(active("AND(A2>1,A2<10)", num(5.0)));
    assert!(!active("AND(A2>1,A2<10)", text("abc")));
    assert!(active("NOT(A2>3)", num(1.0)));
    assert!(active("AND(A2)", text("TRUE"))); // #VALUE!: the text is dropped
    assert!(!active("OR(A2,FALSE)", text("abc")));
    assert!(active("LEN(A2)=5", num(12345.0)));
    assert!(active("LEN(A2)=3", num(5.5)));
    assert!(active("LEN(A2)=5", num(1e-7)));
    assert!(active("A2&\"x\"=\"5x\"", num(5.0)));
    assert!(active("-A2^2=4", num(2.0)));
    assert!(active("A2%=0.05", num(5.0)));
    assert!(active("A2*10", num(1e308))); // #NUM! is true
    assert!(active("A2+1=6", text("5")));
    assert!(active("A2+1", text("abc"))); // #VALUE!
}

#[test]
fn parsing_and_refusals() {
    let f = compile("$F2=MAX($F$2:$F$11)").unwrap();
    assert_eq!(f.inputs(), ["F2", "F2:F11"]);
    let f = compile("$a$1<b2").unwrap();
    assert_eq!(f.inputs(), ["A1", "B2"]);
    for bad in [
        "Sheet1!A1>5",
        "'My Sheet'!A1>5",
        "A1>{1,2}",
        "MyName>5",
        "COUNTIF($A$1:$A$5,A1)>1",
        "A1 > 5",
        "A1>>5",
        "A5:A1>0",
        "TODAY()=A1",
    ] {
        assert!(compile(bad).is_err(), "{bad}");
    }
    assert!(parse("COUNTIF($A$1:$A$5,A1)>1").is_ok());
    assert_eq!(
        abs_refs("A1=MAX($A$1:$A$5)+\"$B$2\"").unwrap(),
        vec![AbsRef::Range((0, 0), (4, 0)), AbsRef::Cell]
    );
    assert_eq!(abs_refs("$A1+A$1+$a$1").unwrap(), vec![]);
    assert_eq!(parse("5").unwrap().constant(), Ok(Some(Const::Num(5.0))));
    assert_eq!(parse("-5").unwrap().constant(), Ok(Some(Const::Num(-5.0))));
    assert_eq!(
        parse("\"a\"\"b\"").unwrap().constant(),
        Ok(Some(Const::Str("a\"b".into())))
    );
    assert_eq!(
        parse("TRUE").unwrap().constant(),
        Ok(Some(Const::Bool(true)))
    );
    assert_eq!(parse("MAX($B$2:$B$11)").unwrap().constant(), Ok(None));
    assert!(parse("1/0").unwrap().constant().is_err());
}
