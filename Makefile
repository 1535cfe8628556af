# The course's commands. Each bootstraps the pinned environment in .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export PYTHONPATH := $(CURDIR)

# The Debian packages a command needs (grading/machine/system.py): installed with apt-get when make runs as
# root, else make stops before anything else runs and prints the one command that installs them.
# SYSTEM_INSTALL=0: only tell. BWRAP=/path: the sandbox's bubblewrap, if not the one on PATH.
SYSTEM := $(PYTHON) -m grading system

.PHONY: reach dask-worker course-user system-test system-grading system-feedback system-demo system-browser system-site system-hub system-postgres site collect bench-site lab lint format test test-fast test-quick postgres postgres-stop hub hub-stop bench-hub bench-grading bench-judge bench-similar bench-corpus release autograde feedback grades report similar roster export demo reference fingerprints notebooks bench sandbox clean

# .venv is made from the course's own copy of the interpreter (.python/, grading/machine/interpreter.py):
# the course user and every sandbox can run it, wherever PYTHON was installed.
$(BIN)/.installed: requirements.txt requirements-dev.txt grading/machine/interpreter.py
	$(PYTHON) -m grading interpreter $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

# MathJax for feedback pages that render their maths offline (grading/nbgrader/feedback.py); needs npm.
MATHJAX_VERSION := 2.7.9
$(VENV)/mathjax/MathJax.js: | $(BIN)/.installed
	@if command -v npm >/dev/null; then \
		cd $(VENV) && npm pack --silent mathjax@$(MATHJAX_VERSION) >/dev/null && rm -rf mathjax package \
		&& tar xzf mathjax-$(MATHJAX_VERSION).tgz && mv package mathjax && rm mathjax-$(MATHJAX_VERSION).tgz; \
	else echo "npm not found: feedback pages will load MathJax from the web"; fi

# The formgrader loads the same MathJax: a copy in .venv/static/ that .venv's Jupyter servers serve at
# <base>static/course-mathjax/, named in .venv/etc/jupyter/ (grading/nbgrader/mathjax.py)
SERVED_MATHJAX := $(VENV)/static/course-mathjax/MathJax.js
$(SERVED_MATHJAX): $(VENV)/mathjax/MathJax.js grading/nbgrader/mathjax.py
	$(BIN)/python -c "from grading.nbgrader import mathjax; mathjax.serve()"

$(BIN)/.torch: $(BIN)/.installed requirements-torch.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-torch.txt
	touch $@

# make hub's JupyterHub and authenticator (requirements-hub.txt), and its proxy from the npm registry,
# in .venv/hub-proxy/ (nothing installed globally)
$(BIN)/.hub: $(BIN)/.installed requirements-hub.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-hub.txt
	touch $@

CHP_VERSION := 5.3.0
HUB_PROXY := $(VENV)/hub-proxy/node_modules/.bin/configurable-http-proxy
$(HUB_PROXY): | $(BIN)/.installed
	npm install --silent --no-audit --no-fund --prefix $(VENV)/hub-proxy configurable-http-proxy@$(CHP_VERSION)

env: $(BIN)/.installed

# As root, grading hands itself over to the course user (grading/course_user.py), which must be able
# to enter the checkout and its class: make test and every target that grades ask first, so a clone
# under a private folder stops at once with the one command that fixes it, before anything installs.
reach:
	@$(PYTHON) -m grading course-user reach

system-test:
	@$(SYSTEM) sandbox browser postgres npm node
system-grading:
	@$(SYSTEM) sandbox
system-feedback:
	@$(SYSTEM) npm
system-demo:
	@$(SYSTEM) sandbox npm
system-browser:
	@$(SYSTEM) browser
system-site:
	@$(SYSTEM) node
system-hub:
	@$(SYSTEM) npm node
system-postgres:
	@$(SYSTEM) postgres

## make lab: learner workspace from the student edition, then JupyterLab on notebook 1
## EDITION=ko or ja: the Korean or Japanese edition (default en; not LANG, the locale variable), with
## JupyterLab's own menus in that language (notebooks/editions/<code>/lab/overrides.json)
## PART=xslm: part two (the tiny GPT), in the same workspace, opened on its notebook 1; each part
## has its folder there (grading/parts.py): part-1-attention/, part-2-gpt/; the Lab's file browser
## starts at the workspace (root_dir), which a notebook to open would otherwise replace by its folder
EDITION ?= en
PART ?= attention
LMS ?= plain
COLUMNS ?= total
WORKSPACE ?= workspace
LAB_FLAGS ?=
FIRST_NOTEBOOK := $(if $(filter xslm,$(PART)),part-2-gpt/01-engine.ipynb,part-1-attention/01-softmax.ipynb)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)   # containers and CI machines run as root
## The Lab keeps the learner's layout and settings in the workspace (.lab/), not in the course's
## notebooks/lab-config/, which it only reads (its migrated marker is the course's, so Jupyter
## writes none there). Run from a hub's terminal, it shares nothing with the hub's lab view.
lab: $(BIN)/.installed
	$(BIN)/python -m grading workspace $(WORKSPACE) --edition $(EDITION) --part $(PART)
	cd $(WORKSPACE) && env -u ATTENTION_LAB_VIEW_URL JUPYTER_CONFIG_DIR=$(CURDIR)/notebooks/lab-config \
		$(CURDIR)/$(BIN)/jupyter lab $(ROOT_FLAG) --ServerApp.root_dir=. \
		--LabApp.app_settings_dir=$(CURDIR)/notebooks/editions/$(EDITION)/lab \
		--LabApp.workspaces_dir="$$PWD/.lab/workspaces" --LabApp.user_settings_dir="$$PWD/.lab/user-settings" \
		$(LAB_FLAGS) $(FIRST_NOTEBOOK)

## make hub: the course on a JupyterHub of this machine, in the background (as root): learner1, learner2
## and instructor1 as system accounts, each one's JupyterLab run as them with make lab's workspace and
## settings (EDITION=ko or ja); it prints the address and the demo logins. HUB_PORT=N: not 8000.
## make hub-stop: the hub and every server it started (docs/hub.md)
HUB_PORT ?= 8000
hub: reach system-hub $(BIN)/.hub $(HUB_PROXY)
	$(BIN)/python -m grading hub start --port $(HUB_PORT) --edition $(EDITION)

hub-stop: $(BIN)/.installed
	$(BIN)/python -m grading hub stop

## make site: the whole course as a static site in site/ (SITE=dir: elsewhere) that runs in the browser
## with nothing installed (JupyterLite, Pyodide); serve it with: python3 -m http.server -d site 8000
SITE ?= site
LITE_CACHE := $(VENV)/lite/.fetched
$(LITE_CACHE): lite/requirements-pyodide.txt | $(BIN)/.installed
	$(BIN)/python -m grading site --fetch
	touch $@

site: system-site $(BIN)/.installed $(LITE_CACHE)
	$(BIN)/python -m grading site $(SITE)

## make test: everything (unit tests, catalogue, all eight master notebooks, nbgrader cycle, torch cross-check);
## first the Debian packages: bubblewrap, util-linux, chromium, postgresql, npm. On two pytest-xdist workers,
## the second in a copy of the checkout of its own (tests/conftest.py): the suite waits on kernels, servers
## and timeouts for about half its time, and the other worker fills it. TEST_WORKERS=0: one process.
## It ends with its time against the budget and its slowest files (docs/developing.md)
TEST_WORKERS ?= 2
test: reach system-test $(BIN)/.installed $(BIN)/.torch $(BIN)/.hub $(HUB_PROXY) $(VENV)/mathjax/MathJax.js $(SERVED_MATHJAX) $(LITE_CACHE)
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup

## make lint: ruff's checks and its formatting, over every Python file and notebook (CI runs it)
lint: $(BIN)/.installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## make format: apply the formatter and ruff's safe fixes
format: $(BIN)/.installed
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## make test-fast: skip the tests that start kernels or nbgrader
test-fast: $(BIN)/.installed
	$(BIN)/python -m pytest -m "not notebooks and not nbgrader"

## make test-quick: the edit loop's tier, at most 5 minutes on 2 cores: the unit tests, the checkpoints,
## the judge, the sandbox, the layering and one submission graded through each lane (marked quick); no
## master notebook, browser, site, hostile class or PyTorch. make test stays the whole suite
QUICK := quick or not (notebooks or nbgrader or browser or site or hostile or torch or slow)
QUICK_WORKERS ?= 2
test-quick: reach system-test $(BIN)/.installed $(VENV)/mathjax/MathJax.js $(SERVED_MATHJAX)
	$(BIN)/python -m pytest -n $(QUICK_WORKERS) --dist loadgroup -m "$(QUICK)"

## make release: the student edition in release/attention (EDITION=ko: release-ko/attention, ...)
## PART=xslm: part two's, in release/xslm
release: $(BIN)/.installed
	$(BIN)/python -m grading release --edition $(EDITION) --part $(PART)

## make autograde / feedback / grades: the class in submitted/, graded in parallel with a progress bar
## JOBS=N parallel graders (default: the number of cores); SCHEDULER=tcp://host:8786 (or local) grades
## on a Dask cluster; FORCE=1 regrades submissions already graded; DB_URL=postgresql+psycopg2://...
## UNSAFE=1 grades without the bubblewrap sandbox (refused otherwise where it cannot run); grades.csv says so
## PART=xslm grades part two (submitted/<student>/xslm/; its table is records/grades-xslm.csv)
## EXECUTE=0: the no-execution lane, several times faster: the judge scores every graded cell as
## always, but no notebook is run, so the feedback shows the outputs each learner saved
AUTOGRADE_FLAGS = $(if $(JOBS),--jobs $(JOBS)) $(if $(SCHEDULER),--scheduler $(SCHEDULER)) \
	$(if $(filter 1,$(FORCE)),--force) --part $(PART)
autograde: reach system-grading $(BIN)/.installed $(VENV)/mathjax/MathJax.js $(SERVED_MATHJAX)
	$(if $(filter 1,$(UNSAFE)),ATTENTION_UNSAFE_NO_SANDBOX=1) $(if $(EXECUTE),ATTENTION_EXECUTE=$(EXECUTE)) \
		$(BIN)/python -m grading autograde $(AUTOGRADE_FLAGS)

## make dask-worker SCHEDULER=tcp://course-host:8786: this machine as a grading worker of that Dask
## scheduler; a clone of the course and the sandbox are all it needs (no shared folder, no gradebook);
## NWORKERS=N worker processes (default: the cores); as root it runs as the course user
dask-worker: reach system-grading $(BIN)/.installed
	@test -n "$(SCHEDULER)" || { echo "make dask-worker needs SCHEDULER=tcp://host:8786" >&2; exit 2; }
	$(BIN)/python -m grading dask-worker "$(SCHEDULER)" $(if $(NWORKERS),--nworkers $(NWORKERS))

## make collect: each hand-in zip of the in-browser edition, downloaded/<part>/archive/<student>.zip,
## into submitted/<student>/<part>/ (nbgrader zip_collect; unsafe zips are set aside in refused/);
## FORCE=1 replaces what is there
collect: reach $(BIN)/.installed
	$(BIN)/python -m grading collect --part $(PART) $(if $(filter 1,$(FORCE)),--force)

## make course-user: as root, the unprivileged account grading can run as (attention-grader), its
## sandbox uids (/etc/subuid) and its cgroups; then what is set up (grading/course_user.py)
course-user: system-grading
	$(PYTHON) -m grading course-user setup

## make postgres: a local PostgreSQL server for the gradebook (Debian's postgresql package), in
## .postgres/, password required (kept in .postgres/pgpass, 0600); it prints the DB_URL to pass
## (it names that file, not the password): make release autograde DB_URL="..."; make postgres-stop
postgres: system-postgres $(BIN)/.installed
	$(BIN)/python -m grading postgres start

postgres-stop: $(BIN)/.installed
	$(BIN)/python -m grading postgres stop

feedback: reach system-feedback $(BIN)/.installed $(VENV)/mathjax/MathJax.js $(SERVED_MATHJAX)
	$(BIN)/python -m grading feedback --part $(PART)

grades: reach $(BIN)/.installed
	$(BIN)/python -m grading grades --part $(PART)

## make similar: records/similar.html, pairs of submissions unusually alike (a list to review)
similar: reach $(BIN)/.installed
	$(BIN)/python -m grading similar --part $(PART)

## make roster ROSTER=roster.csv: the students' names, emails and LMS ids into the gradebook
## (a field the gradebook already holds changes only with FORCE=1; DEMO=1: make demo's gradebook)
roster: $(BIN)/.installed
	@test -n "$(ROSTER)" || { echo "make roster needs ROSTER=path/to/roster.csv" >&2; exit 2; }
	$(BIN)/python -m grading roster "$(ROSTER)" $(if $(filter 1,$(FORCE)),--force) \
		$(if $(filter 1,$(DEMO)),--demo)

## make export LMS=canvas|moodle|plain [COLUMNS=checkpoints] [TITLE="..."]: records/exports/<lms>.csv
## (DEMO=1: make demo's class)
export: reach $(BIN)/.installed
	$(BIN)/python -m grading export --to $(LMS) --columns $(COLUMNS) --part $(PART) \
		$(if $(TITLE),--title "$(TITLE)") $(if $(filter 1,$(DEMO)),--demo)

## make report: records/report.html and report.json, the class report (DEMO=1: make demo's class)
report: reach $(BIN)/.installed
	$(BIN)/python -m grading report --part $(PART) $(if $(filter 1,$(DEMO)),--demo)

## make demo: release, a simulated class (correct, empty, six classic mistakes, half-finished), grade, table
## PART=xslm: part two's class (correct, empty, its nine catalogued mistakes); table grades-xslm.csv
## all in demo/, a class folder of its own (demo/submitted/, demo/records/gradebook.db and grades.csv):
## the course's submissions and gradebook are never touched
demo: reach system-demo $(BIN)/.installed $(VENV)/mathjax/MathJax.js $(SERVED_MATHJAX)
	$(if $(filter 1,$(UNSAFE)),ATTENTION_UNSAFE_NO_SANDBOX=1) $(BIN)/python -m grading demo \
		--part $(PART)

## make reference: re-run both parts' master notebooks; refresh model.py, xslm/ and outputs/
reference: $(BIN)/.installed
	$(BIN)/python -m grading masters --update

## make fingerprints: refresh checkpoints/attention/fingerprints.json and checkpoints/xslm/answers.json
fingerprints: $(BIN)/.installed
	$(BIN)/python -m grading fingerprints

## make notebooks: write the master .ipynb files from their text forms in notebooks/text/attention/
notebooks: $(BIN)/.installed
	$(BIN)/python -m grading notebooks

bench: $(BIN)/.installed
	$(BIN)/python -m bench.run

## make bench-site: the in-browser site's build time and size, and a learner's wait in chromium from
## the landing page's link to notebook 1's first verdict: a first visit, a return, a return offline
## (RUNS=5 learners; minimum, median and maximum against README's targets). AGAINST=dir: a site built
## before (make site SITE=dir, in an older checkout), its learners in turn with this one's
bench-site: system-browser system-site $(BIN)/.installed $(LITE_CACHE)
	$(BIN)/python -m bench.site $(if $(RUNS),--runs $(RUNS)) $(if $(AGAINST),--against $(AGAINST))

## make bench-judge: the trusted judge on the reference submission, RUNS times (default 4) in one
## process: its first judgement, then what every later one costs (PART=attention|xslm)
bench-judge: system-grading $(BIN)/.installed
	$(BIN)/python -m bench.judge --part $(PART) $(if $(RUNS),--runs $(RUNS))

## make bench-corpus: the diagnosis on code written the ways people write it, per corpus (the course's,
## and bench/pattern_corpus.py's, modelled on public repositories): verdicts right, the share of wrong
## ones named, and wrong names (there must be none). ENTRIES=1: one line per entry as well
bench-corpus: $(BIN)/.installed
	$(BIN)/python -m bench.corpus $(if $(ENTRIES),--entries)

## make bench-similar: how long make similar takes for a class of 200 (SIZE=N), made in memory
bench-similar: $(BIN)/.installed
	$(BIN)/python -m bench.similarity --size $(or $(SIZE),200)

## make bench-hub: SIZE (default 20) learners on the course's hub at once, from hand-in to feedback
## (as root, no other hub running; python -m bench.hub_class -h)
bench-hub: reach system-hub $(BIN)/.hub $(HUB_PROXY)
	$(BIN)/python -m bench.hub_class $(if $(SIZE),--size $(SIZE))

## make bench-grading: a class of SIZE (default 40) graded by plain nbgrader and each lane: JOBS=1, 2, 4,
## EXECUTE=0 JOBS=2, Dask; PART=xslm: part two's class; LANES=plain,noexec-2,4 (python -m bench.grading -h)
bench-grading: system-grading $(BIN)/.installed
	$(BIN)/python -m bench.grading $(if $(SIZE),--size $(SIZE)) $(if $(LANES),--lanes $(LANES)) \
		--part $(PART)

## make sandbox: install bubblewrap (Debian/Ubuntu, as root) and check that a sandbox starts here
sandbox: system-grading $(BIN)/.installed
	$(BIN)/python -c "from grading.machine import sandbox; sandbox.require(); print('sandbox works here')"

## make clean: remove what is built (student editions, build/, site/, the demo's class in demo/);
## a class (submissions, hand-ins, results, gradebook, tables) is kept unless FORCE=1
CLASS_FILES := submitted downloaded exchange autograded judged feedback records gradebook.db \
	grades.csv grades-*.csv gradebook-export.csv intake.json
KEPT = $(wildcard $(CLASS_FILES))
clean:
	rm -rf release release-* build site demo .pytest_cache
	$(if $(filter 1,$(FORCE)),rm -rf $(CLASS_FILES),$(if $(KEPT),@echo "make clean kept the class: \
		$(KEPT) (make clean FORCE=1 removes them too)"))
