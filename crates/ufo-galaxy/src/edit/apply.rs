//! What each edit command does to a constellation, with the checks that
//! belong to the command itself: the ids it names exist (or, for an add,
//! do not), and what it touches has not started. Whether the result is
//! still a valid plan is the editor's check, after the command
//! ([`crate::edit::Editor`]).

use crate::edit::command::{
    AddDependency, AddTask, BuildConstellation, EditCommand, UpdateDependency, UpdateTask,
};
use crate::edit::error::{EditError, ItemKind};
use crate::model::{DependencyType, TaskConstellation, TaskStar, TaskStarLine, now};

/// Applies `cmd` to `c` (which the caller discards on error).
pub(crate) fn apply(c: &mut TaskConstellation, cmd: &EditCommand) -> Result<(), EditError> {
    match cmd {
        EditCommand::AddTask(a) => add_task(c, a),
        EditCommand::RemoveTask(r) => remove_task(c, &r.task_id),
        EditCommand::UpdateTask(u) => update_task(c, u),
        EditCommand::AddDependency(a) => add_dependency(c, a),
        EditCommand::RemoveDependency(r) => remove_dependency(c, &r.dependency_id),
        EditCommand::UpdateDependency(u) => update_dependency(c, u),
        EditCommand::BuildConstellation(b) => build(c, b),
    }
}

fn not_found(kind: ItemKind, id: &str) -> EditError {
    EditError::NotFound {
        kind,
        id: id.to_owned(),
    }
}

/// The task `task_id`, if it has not started.
fn modifiable_task<'a>(
    c: &'a mut TaskConstellation,
    task_id: &str,
) -> Result<&'a mut TaskStar, EditError> {
    let t = c
        .task_mut(task_id)
        .ok_or_else(|| not_found(ItemKind::Task, task_id))?;
    if !t.status.is_not_started() {
        return Err(EditError::Started {
            kind: ItemKind::Task,
            id: task_id.to_owned(),
            task_id: task_id.to_owned(),
            status: t.status,
        });
    }
    Ok(t)
}

/// The dependency `line_id`, if the task it leads to has not started (a
/// dependency into a missing task may change: it is being repaired).
fn modifiable_line<'a>(
    c: &'a mut TaskConstellation,
    line_id: &str,
) -> Result<&'a mut TaskStarLine, EditError> {
    let to = c
        .dependency(line_id)
        .ok_or_else(|| not_found(ItemKind::Dependency, line_id))?
        .to_task_id
        .clone();
    if let Some(t) = c.task(&to)
        && !t.status.is_not_started()
    {
        return Err(EditError::Started {
            kind: ItemKind::Dependency,
            id: line_id.to_owned(),
            task_id: to,
            status: t.status,
        });
    }
    c.dependency_mut(line_id)
        .ok_or_else(|| not_found(ItemKind::Dependency, line_id))
}

fn add_task(c: &mut TaskConstellation, a: &AddTask) -> Result<(), EditError> {
    if c.task(&a.task_id).is_some() {
        return Err(EditError::AlreadyExists {
            kind: ItemKind::Task,
            id: a.task_id.clone(),
        });
    }
    let mut t = TaskStar::new(a.task_id.clone(), a.name.clone(), a.description.clone());
    t.target_device_id = a.target_device_id.clone();
    t.tips = a.tips.clone().unwrap_or_default();
    c.tasks.push(t);
    Ok(())
}

fn remove_task(c: &mut TaskConstellation, task_id: &str) -> Result<(), EditError> {
    modifiable_task(c, task_id)?;
    c.tasks.retain(|t| t.task_id != task_id);
    c.lines.retain(|l| !l.touches(task_id));
    Ok(())
}

fn update_task(c: &mut TaskConstellation, u: &UpdateTask) -> Result<(), EditError> {
    let t = modifiable_task(c, &u.task_id)?;
    if u.name.is_none()
        && u.description.is_none()
        && u.target_device_id.is_none()
        && u.tips.is_none()
    {
        return Err(EditError::NothingToUpdate {
            function: "update_task".into(),
        });
    }
    if let Some(name) = &u.name {
        t.set_name(name.clone());
    }
    if let Some(d) = &u.description {
        t.description = d.clone();
    }
    if let Some(d) = &u.target_device_id {
        t.target_device_id = Some(d.clone());
    }
    if let Some(tips) = &u.tips {
        t.tips = tips.clone();
    }
    t.updated_at = now();
    Ok(())
}

fn add_dependency(c: &mut TaskConstellation, a: &AddDependency) -> Result<(), EditError> {
    if c.dependency(&a.dependency_id).is_some() {
        return Err(EditError::AlreadyExists {
            kind: ItemKind::Dependency,
            id: a.dependency_id.clone(),
        });
    }
    if c.task(&a.from_task_id).is_none() {
        return Err(not_found(ItemKind::Task, &a.from_task_id));
    }
    modifiable_task(c, &a.to_task_id)?;
    let kind = a.dependency_type.unwrap_or(DependencyType::Unconditional);
    let mut line = TaskStarLine::new(
        a.dependency_id.clone(),
        a.from_task_id.clone(),
        a.to_task_id.clone(),
        kind,
    );
    line.condition_description = a.condition_description.clone().unwrap_or_default();
    c.lines.push(line);
    Ok(())
}

fn remove_dependency(c: &mut TaskConstellation, line_id: &str) -> Result<(), EditError> {
    modifiable_line(c, line_id)?;
    c.lines.retain(|l| l.line_id != line_id);
    Ok(())
}

fn update_dependency(c: &mut TaskConstellation, u: &UpdateDependency) -> Result<(), EditError> {
    let l = modifiable_line(c, &u.dependency_id)?;
    if u.condition_description.is_none() && u.dependency_type.is_none() {
        return Err(EditError::NothingToUpdate {
            function: "update_dependency".into(),
        });
    }
    if let Some(text) = &u.condition_description {
        l.condition_description = text.clone();
    }
    if let Some(kind) = u.dependency_type {
        l.dependency_type = kind;
    }
    l.updated_at = now();
    Ok(())
}

fn build(c: &mut TaskConstellation, b: &BuildConstellation) -> Result<(), EditError> {
    if b.clear_existing {
        *c = b.config.clone();
        return Ok(());
    }
    for t in b.config.tasks() {
        if c.task(&t.task_id).is_some() {
            return Err(EditError::AlreadyExists {
                kind: ItemKind::Task,
                id: t.task_id.clone(),
            });
        }
        c.tasks.push(t.clone());
    }
    for l in b.config.dependencies() {
        if c.dependency(&l.line_id).is_some() {
            return Err(EditError::AlreadyExists {
                kind: ItemKind::Dependency,
                id: l.line_id.clone(),
            });
        }
        c.lines.push(l.clone());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::TaskStatus;
    use serde_json::json;

    fn plan() -> TaskConstellation {
        let mut c = TaskConstellation::from_value(&json!({"constellation_id": "c", "tasks": [
            {"task_id": "a", "description": "x"}, {"task_id": "b", "description": "y"}],
            "dependencies": [{"line_id": "ab", "from_task_id": "a", "to_task_id": "b"}]}))
        .unwrap();
        c.start_task("a").unwrap();
        c
    }

    fn run(
        c: &mut TaskConstellation,
        function: &str,
        args: serde_json::Value,
    ) -> Result<(), EditError> {
        apply(c, &EditCommand::parse(function, &args)?)
    }

    #[test]
    fn started_tasks_and_their_incoming_lines_are_refused() {
        let mut c = plan();
        let e = run(
            &mut c,
            "update_task",
            json!({"task_id": "a", "name": "new"}),
        )
        .unwrap_err();
        assert_eq!(
            e,
            EditError::Started {
                kind: ItemKind::Task,
                id: "a".into(),
                task_id: "a".into(),
                status: TaskStatus::Running
            }
        );
        assert!(run(&mut c, "remove_task", json!({"task_id": "a"})).is_err());
        run(
            &mut c,
            "add_task",
            json!({"task_id": "z", "name": "Z", "description": "z"}),
        )
        .unwrap();
        let e = run(
            &mut c,
            "add_dependency",
            json!({"dependency_id": "za", "from_task_id": "z", "to_task_id": "a"}),
        )
        .unwrap_err();
        assert!(matches!(e, EditError::Started { .. }), "{e}");
        // Out of a started task into a pending one is fine.
        run(
            &mut c,
            "update_dependency",
            json!({"dependency_id": "ab", "dependency_type": "success_only"}),
        )
        .unwrap();
        assert_eq!(
            c.dependency("ab").unwrap().dependency_type,
            DependencyType::SuccessOnly
        );
    }

    #[test]
    fn removing_a_task_removes_its_lines() {
        let mut c = plan();
        run(&mut c, "remove_task", json!({"task_id": "b"})).unwrap();
        assert!(c.task("b").is_none() && c.dependencies().is_empty());
    }

    #[test]
    fn ids_must_exist_or_be_new() {
        let mut c = plan();
        let e = run(
            &mut c,
            "add_task",
            json!({"task_id": "b", "name": "B", "description": "y"}),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "task with ID b already exists");
        let e = run(&mut c, "remove_dependency", json!({"dependency_id": "zz"})).unwrap_err();
        assert_eq!(e.to_string(), "no dependency \"zz\" in the constellation");
        let e = run(
            &mut c,
            "add_dependency",
            json!({"dependency_id": "x", "from_task_id": "ghost", "to_task_id": "b"}),
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "no task \"ghost\" in the constellation");
        let e = run(&mut c, "update_task", json!({"task_id": "b"})).unwrap_err();
        assert_eq!(
            e.to_string(),
            "update_task: at least one field must be provided for update"
        );
    }

    #[test]
    fn build_replaces_or_adds() {
        let mut c = plan();
        run(&mut c, "build_constellation", json!({"config": {"constellation_id": "n", "tasks": [{"task_id": "q", "description": "q"}]}, "clear_existing": false})).unwrap();
        assert_eq!(c.tasks().len(), 3);
        assert_eq!(c.id(), "c");
        run(&mut c, "build_constellation", json!({"config": {"constellation_id": "n", "tasks": [{"task_id": "q", "description": "q"}]}})).unwrap();
        assert_eq!((c.id(), c.tasks().len()), ("n", 1));
    }
}
