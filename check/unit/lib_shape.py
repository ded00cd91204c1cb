#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# lib/'s shape rules (doc/layout.md), on the sources' includes and, with
# nm, on the built objects' symbols. Prints one line a violation,
# "RULE<TAB>what", and nothing when lib/ keeps every rule.
#
# usage: lib_shape.py LIB OBJ LAYOUT_MD TOP
#   LIB        the lib/ folder
#   OBJ        its objects (OBJ/FOLDER/MODULE.o, as make builds them)
#   LAYOUT_MD  doc/layout.md: the folder order and the prefix table
#   TOP        the tree whose tests/, tools/ and check/ use lib/
import os
import re
import subprocess
import sys

lib, obj, layout, top = sys.argv[1:5]
tdir = os.environ.get('ZC_SHAPE_TESTS') or os.path.join(top, 'tests')
NM = os.environ.get('NM', 'nm')
SIZE_MAX = 600
bad = []


def out(rule, msg):
    bad.append('%s\t%s' % (rule, msg))


# --- what doc/layout.md declares: the order and each module's prefixes
doc = open(layout).read()
m = re.search(r'^folder order: (.*)$', doc, re.M)
order = m.group(1).split() if m else []
m = re.search(r'^path folders: (.*)$', doc, re.M)
paths = set(m.group(1).split()) if m else set()
# A test folder holds one test's own modules: "folder" is the test of
# that name, "folder=test" names another.
tests_of = {}
m = re.search(r'^test folders: (.*)$', doc, re.M)
for w in (m.group(1).split() if m else []):
    f, _, t = w.partition('=')
    tests_of[f] = t or f
rank = {d: i for i, d in enumerate(order)}
prefixes = {}		# module ("core/ktap") -> [prefix, ...]
for mod, pre in re.findall(r'^\| `(\w+/\w+)` \| (.*?) \|', doc, re.M):
    prefixes[mod] = re.findall(r'`(\w+)`', pre.split('(')[0])


def module(path):
    """core/zcsend_int.h -> core/zcsend: X_int.h is X's inside."""
    return re.sub(r'_int$', '', os.path.splitext(path)[0])


# --- the sources: folders, includes
files = {}		# "core/ktap.c" -> text
for d in sorted(os.listdir(lib)):
    p = os.path.join(lib, d)
    if os.path.isfile(p):
        out('folders', 'lib/%s: a file directly in lib/ (one folder a mechanism)' % d)
        continue
    if d not in rank:
        out('folders', 'lib/%s/: a folder not in the order "%s"' % (d, ' '.join(order)))
        continue
    for f in sorted(os.listdir(p)):
        if f.endswith(('.c', '.h')):
            files[d + '/' + f] = open(os.path.join(p, f)).read()

INC = re.compile(r'^#include "(\w+/[\w.]+\.h)"', re.M)
mods = sorted({module(f) for f in files})
deps = {}
users = {}		# module -> {user class: example file}
for f, text in files.items():
    d, mf = f.split('/')[0], module(f)
    for inc in INC.findall(text):
        if inc not in files:
            continue
        to, mt = inc.split('/')[0], module(inc)
        if mt != mf:
            deps.setdefault(mf, set()).add(mt)
            users.setdefault(mt, {}).setdefault(d, 'lib/' + f)
        if to != d and to in paths and d in paths:
            out('folders', 'lib/%s includes %s: path folders never use each other' % (f, inc))
        elif to != d and to in tests_of and d in tests_of:
            out('folders', 'lib/%s includes %s: test folders never use each other' % (f, inc))
        elif rank.get(to, 99) > rank[d] and not (to in paths and d in paths):
            out('folders', 'lib/%s includes %s: %s/ comes after %s/' % (f, inc, to, d))

# The tree's own users: a test belongs to the one path folder it
# includes; tools and checks are everybody's.
for sub in ('tests', 'tools', 'check'):
    for dp, _, fs in os.walk(os.path.join(top, sub)):
        for f in fs:
            if not f.endswith(('.c', '.h')):
                continue
            rel = os.path.relpath(os.path.join(dp, f), top)
            text = open(os.path.join(dp, f)).read()
            incs = [i for i in INC.findall(text) if i in files]
            mine = {i.split('/')[0] for i in incs} & paths
            who = mine.pop() if sub == 'tests' and len(mine) == 1 else sub
            for i in incs:
                users.setdefault(module(i), {}).setdefault(who, rel)

# --- no include cycle between modules
state = {}


def walk(m, path):
    if state.get(m) == 1:
        out('include_cycle', ' -> '.join(path[path.index(m):] + [m]))
        return True
    if state.get(m) == 2:
        return False
    state[m] = 1
    for dm in sorted(deps.get(m, ())):
        if walk(dm, path + [m]):
            return True
    state[m] = 2
    return False


for m in sorted(deps):
    if walk(m, []):
        break

# --- a module's size: X.c + X.h (+ X_int.h)
for m in mods:
    n = sum(files[f].count('\n') for f in files if module(f) == m)
    if n > SIZE_MAX:
        out('size', 'lib/%s: %d lines in X.c + X.h (+ X_int.h), over %d' % (m, n, SIZE_MAX))

# --- what one path needs lives in its folder
for m in mods:
    d = m.split('/')[0]
    if d in paths or d in tests_of or m not in users:
        continue
    # A user in its own folder keeps it there (a folder never uses a
    # path folder after it).
    who = set(users[m])
    if len(who) == 1 and who <= paths:
        p = who.pop()
        out('one_path', 'lib/%s: used only by the %s path (%s): it belongs in lib/%s/'
            % (m, p, users[m][p], p))

# --- what one test needs lives with it: the programs (tests and tools,
# not checks) whose includes reach each module, through any chain
def reach(ms):
    seen, todo = set(), list(ms)
    while todo:
        x = todo.pop()
        if x not in seen:
            seen.add(x)
            todo += deps.get(x, ())
    return seen


progs = {}		# module -> {program name}
for sub in ('tests', 'tools'):
    for dp, _, fs in os.walk(os.path.join(top, sub)):
        for f in fs:
            if f.endswith('.c'):
                text = open(os.path.join(dp, f)).read()
                inc = {module(i) for i in INC.findall(text) if i in files}
                for x in reach(inc):
                    progs.setdefault(x, set()).add(f[:-2])
for m in mods:
    d = m.split('/')[0]
    who = progs.get(m, set())
    if d in tests_of:
        other = sorted(who - {tests_of[d]})
        if other:
            out('one_test', 'lib/%s: in %s\'s folder, but %s uses it too'
                % (m, tests_of[d], ', '.join(other)))
    elif len(who) == 1:
        t = next(iter(who))
        home = [f for f, tt in tests_of.items() if tt == t]
        out('one_test', 'lib/%s: used only by %s: it belongs in %s or the test'
            % (m, t, 'lib/%s/' % home[0] if home else 'a folder of its own'))

# --- symbols: exports by prefix, no two files calling each other
defs, undefs = {}, {}	# object module -> set of names
for m in mods:
    o = os.path.join(obj, m + '.o')
    if not os.path.exists(os.path.join(lib, m + '.c')):
        continue
    if not os.path.exists(o):
        out('exports', '%s: not built (build lib/ first)' % o)
        continue
    r = subprocess.run([NM, o], capture_output=True, text=True, check=True)
    defs[m], undefs[m] = set(), set()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRGSVW':
            defs[m].add(f[2])
        elif len(f) == 2 and f[0] == 'U':
            undefs[m].add(f[1])

# A module without a row of the table takes the default, zc_X_.
for m in defs:
    prefixes.setdefault(m, ['zc_%s_' % m.split('/')[1]])
claimed = {}
for m, ps in prefixes.items():
    for p in ps:
        if p in claimed:
            out('exports', 'prefix %s claimed by %s and %s (doc/layout.md)' % (p, claimed[p], m))
        claimed[p] = m
for m in sorted(defs):
    for s in sorted(defs[m]):
        own = [p for p in claimed if s.startswith(p)]
        best = max(own, key=len) if own else None
        if best is None or claimed[best] != m:
            out('exports', 'lib/%s exports %s: %s' % (m, s,
                'no prefix of the table has it' if best is None else
                'its prefix %s is lib/%s\'s' % (best, claimed[best])))

# A module is X.c + X.h: what X.o exports, X.h (or X_int.h) declares.
for m in sorted(defs):
    head = ''.join(files.get(m + e, '') for e in ('.h', '_int.h'))
    if not head:
        out('module', 'lib/%s.c: no lib/%s.h (a module is X.c + X.h)' % (m, m))
        continue
    for s in sorted(defs[m]):
        if not re.search(r'\b%s\b' % re.escape(s), head):
            out('module', 'lib/%s exports %s, which lib/%s.h does not declare' % (m, s, m))

# An export has a user outside its module: another object of lib/, a
# macro of a lib/ header, or a source of tests/, tools/ or check/. One
# nobody calls is code nobody runs: remove it, or make it static.
MACRO = re.compile(r'^#define\b(?:.*\\\n)*.*$', re.M)
outside = ' '.join(m for t in files.values() for m in MACRO.findall(t))
for sub in ('tests', 'tools', 'check'):
    base = tdir if sub == 'tests' else os.path.join(top, sub)
    for dp, _, fs in os.walk(base):
        outside += ' '.join(open(os.path.join(dp, f), errors='replace').read()
                            for f in fs if f.endswith(('.c', '.h')))
words = set(re.findall(r'\w+', outside))
for m in sorted(defs):
    for s in sorted(defs[m]):
        if s not in words and not any(s in undefs[o] for o in defs if o != m):
            out('unused', 'lib/%s exports %s, which nothing outside lib/%s.c uses'
                % (m, s, m))

where = {s: m for m in defs for s in defs[m]}
calls = {m: {where[s] for s in undefs[m] if s in where} - {m} for m in defs}
seen = set()
for a in sorted(calls):
    for b in sorted(calls[a]):
        if a in calls.get(b, ()) and (b, a) not in seen:
            seen.add((a, b))
            ab = sorted(s for s in undefs[a] if where.get(s) == b)
            ba = sorted(s for s in undefs[b] if where.get(s) == a)
            out('calls_both_ways', 'lib/%s.c <-> lib/%s.c: %s calls %s, %s calls %s'
                % (a, b, a, ' '.join(ab), b, ' '.join(ba)))

# A status is decided in lib/core alone (runner.c's case_status): lib/
# outside core reports facts (ktap_seen), never a SKIP/XFAIL/XPASS.
STATUS_CALLS = ('ktap_xfail', 'ktap_skip', 'ktap_skip_why')
for m in sorted(undefs):
    if m.startswith('core/'):
        continue
    hit = sorted(s for s in undefs[m] if s in STATUS_CALLS)
    if hit:
        out('status', 'lib/%s.c calls %s: a status is case_status()\'s (lib/core/runner.c); report a fact (ktap_seen)'
            % (m, ' '.join(hit)))
# A test's bodies report facts too: a SKIP whose class varies is
# KTAP_FACT_CANNOT_RUN with the class in its reason.
# A case is declared once: no names array beside an enum or a flag in
# tests/ (an array of names, or a string indexed by a designator); the
# value and its name are one table entry (ZC_AXIS_TABLE).
STATUS_RE = re.compile(r'\b(%s)\s*\(' % '|'.join(STATUS_CALLS))
NAMES_RE = re.compile(r'\bchar\s*\*\s*const\s+\w*names\s*\[|(^|[{,])\s*\[\s*\w+\s*\]\s*=\s*"')
for f in sorted(os.listdir(tdir)) if os.path.isdir(tdir) else ():
    if not f.endswith('.c'):
        continue
    for n, line in enumerate(open(os.path.join(tdir, f)), 1):
        if line.lstrip().startswith(('*', '/*', '//')):
            continue
        m = STATUS_RE.search(line)
        if m:
            out('status', 'tests/%s:%d calls %s: a status is case_status()\'s; report a fact (ktap_seen, KTAP_FACT_CANNOT_RUN for a SKIP of the reason\'s class)'
                % (f, n, m.group(1)))
        if NAMES_RE.search(line):
            out('names', 'tests/%s:%d: a names array beside the values it names; make each value and its name one table entry (ZC_AXIS_TABLE)'
                % (f, n))

print('\n'.join(bad))
