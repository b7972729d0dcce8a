//! Finding the cycles of a directed graph, one named cycle per strongly
//! connected group and one per self-loop, without recursion (a model's
//! graph may be long).

/// The cycles of `adj` (successors by node index), each as its nodes in
/// order with the first repeated at the end (`[a, b, a]`): every self-loop
/// (`[a, a]`), and one shortest cycle through the lowest node of each
/// strongly connected group of two nodes or more. They come in the order
/// of their first nodes, a group's before a self-loop on the same node.
pub(crate) fn cycles(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let component = components(adj);
    let mut size = vec![0usize; adj.len()];
    for &g in &component {
        size[g] += 1;
    }
    let mut out = Vec::new();
    let mut seen_group = vec![false; adj.len()];
    for v in 0..adj.len() {
        let g = component[v];
        if !seen_group[g] && size[g] > 1 {
            seen_group[g] = true;
            out.extend(shortest_cycle(adj, &component, v));
        }
        if adj[v].contains(&v) {
            out.push(vec![v, v]);
        }
    }
    out
}

/// Each node's strongly connected group (Kosaraju, iterative).
fn components(adj: &[Vec<usize>]) -> Vec<usize> {
    let n = adj.len();
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for s in 0..n {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some(&(v, i)) = stack.last() {
            if let Some(&w) = adj[v].get(i) {
                if let Some(top) = stack.last_mut() {
                    top.1 += 1;
                }
                if !seen[w] {
                    seen[w] = true;
                    stack.push((w, 0));
                }
            } else {
                order.push(v);
                stack.pop();
            }
        }
    }
    let mut radj = vec![Vec::new(); n];
    for (v, succ) in adj.iter().enumerate() {
        for &w in succ {
            radj[w].push(v);
        }
    }
    let mut group = vec![usize::MAX; n];
    let mut next = 0;
    for &s in order.iter().rev() {
        if group[s] != usize::MAX {
            continue;
        }
        group[s] = next;
        let mut stack = vec![s];
        while let Some(v) = stack.pop() {
            for &w in &radj[v] {
                if group[w] == usize::MAX {
                    group[w] = next;
                    stack.push(w);
                }
            }
        }
        next += 1;
    }
    group
}

/// A shortest cycle through `start` inside its group (breadth first).
fn shortest_cycle(adj: &[Vec<usize>], group: &[usize], start: usize) -> Option<Vec<usize>> {
    let mut parent = vec![usize::MAX; adj.len()];
    let mut queue = std::collections::VecDeque::from([start]);
    parent[start] = start;
    while let Some(v) = queue.pop_front() {
        for &w in adj[v].iter().filter(|&&w| w != v) {
            if w == start {
                let mut back = Vec::new();
                let mut at = v;
                while at != start {
                    back.push(at);
                    at = parent[at];
                }
                let mut path = vec![start];
                path.extend(back.into_iter().rev());
                path.push(start);
                return Some(path);
            }
            if group[w] == group[start] && parent[w] == usize::MAX {
                parent[w] = v;
                queue.push_back(w);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_acyclic_graph_has_none() {
        assert!(cycles(&[vec![1, 2], vec![2], vec![]]).is_empty());
        assert!(cycles(&[]).is_empty());
    }

    #[test]
    fn each_group_gets_one_shortest_cycle_in_edge_order() {
        // 0 → 1 → 2 → 0, 1 → 0 (shorter), 3 → 3, 4 → 5 → 4, 2 → 4.
        let adj = vec![vec![1], vec![2, 0], vec![0, 4], vec![3], vec![5], vec![4]];
        assert_eq!(cycles(&adj), [vec![0, 1, 0], vec![3, 3], vec![4, 5, 4]]);
    }

    #[test]
    fn a_self_loop_inside_a_group_is_its_own_cycle() {
        let adj = vec![vec![0, 1], vec![0]];
        assert_eq!(cycles(&adj), [vec![0, 1, 0], vec![0, 0]]);
    }

    #[test]
    fn a_long_cycle_is_walked_in_order() {
        let adj = vec![vec![1], vec![2], vec![3], vec![0]];
        assert_eq!(cycles(&adj), [vec![0, 1, 2, 3, 0]]);
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let n = 100_000;
        let mut adj: Vec<Vec<usize>> = (0..n).map(|i| vec![i + 1]).collect();
        adj[n - 1] = vec![0];
        let found = cycles(&adj);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].len(), n + 1);
    }
}
