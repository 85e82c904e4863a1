"""Sessions: tests on both ag-ui-protocol lines and each framework's tested versions, the
built wheel, lint (with the docs site and the workflows), types.

`python -m nox` runs the default sessions (what .ci/run runs); `nox -s tests` the suite on
the newest versions; `nox -l` lists every session.
"""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.reuse_existing_virtualenvs = True
nox.options.error_on_missing_interpreters = True  # no Python 3.11: a failure, not a pass
nox.options.sessions = [
    "tests",
    "tests-ag-ui-0.1",
    "tests-agent-framework",
    "tests-langgraph-mcp",
    "tests-agno",
    "tests-crewai",
    "js-frontends",
    "js-agents",
    "lint",
    "wheel",
]  # `types` runs inside `tests` (mypy on its environment): one install of `[all]` less

PYTHON = "3.11"
#: LlamaIndex's MCP client, for the tests whose LlamaIndex agent reaches a Reader over MCP.
LLAMA_INDEX_MCP = "llama-index-tools-mcp>=0.6"
#: crewai-tools' MCP adapter, which holds a Reader's MCP server open for a CrewAI test's runs.
CREWAI_TOOLS_MCP = "crewai-tools[mcp]>=1.15.7,<2"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The whole suite, every extra of `[all]` installed, on ag-ui-protocol 1.x.

    Four directories run in their own sessions: the Agent Framework adapter's, CrewAI's
    and the Claude Agent SDK's tests need extras `[all]` cannot hold
    (`tests-agent-framework`, `tests-crewai`, `tests-claude-sdk`); those of
    langchain-mcp-adapters need mcp 1.x, which `[all]` does not take
    (`tests-langgraph-mcp`). Then, in the same environment (each an
    install of `[all]` less in the default run): mypy --strict on the package, as `types`
    runs it, and the npm package's tests, as `js` runs them (@ag-ui/client 0.0.59 too).
    """
    _install_all(session, "-e", ".[all,test]", LLAMA_INDEX_MCP, "mypy")
    _npm_ci(session)  # before pytest: the browser test of <MocaSources> renders with it
    session.run(
        "pytest",
        "--ignore=tests/agent_framework_adapter",
        "--ignore=tests/langgraph_mcp_adapter",
        "--ignore=tests/claude_sdk_middleware",
        "--ignore=tests/crewai_middleware",
        *session.posargs,
    )
    if not session.posargs:  # `nox -s tests -- tests/core` runs only what it names
        _mypy(session)
        _js_tests(session)
        _oldest_client(session)


def _install_all(session: nox.Session, *args: str) -> None:
    """A "strict" editable install lays the package out as links mypy can follow; the
    default one maps `core/` to `moca_agui` through an import hook mypy cannot see."""
    session.install("--config-settings", "editable_mode=strict", *args)


def _mypy(session: nox.Session) -> None:
    session.run("mypy", "-p", "moca_agui")


@nox.session(python=PYTHON, name="tests-ag-ui-0.1")
@nox.parametrize(
    "pin", ["ag-ui-protocol==0.1.10", "ag-ui-protocol>=0.1.10,<0.2"], ids=["0.1.10", "0.1-newest"]
)
def tests_ag_ui_01(session: nox.Session, pin: str) -> None:
    """The core, the bare-SDK adapter, the ASGI middleware, the adversarial suite and the
    conformance corpus on ag-ui-protocol 0.1.x."""
    session.install("-e", ".[test]", pin)
    session.run(
        "pytest", "tests/core", "tests/asgi", "tests/adversarial", "tests/conformance",
        *session.posargs,
    )  # fmt: skip


@nox.session(python=PYTHON, name="llama-index-0.5")
def llama_index_05(session: nox.Session) -> None:
    """The LlamaIndex adapter on llama-index-protocols-ag-ui 0.5 and ag-ui-protocol 0.1.x."""
    session.install(
        "-e",
        ".[llama-index,test]",
        "llama-index-protocols-ag-ui>=0.5,<0.6",
        "ag-ui-protocol>=0.1.15,<0.2",
        LLAMA_INDEX_MCP,
    )
    session.run("pytest", "tests/llama_index_adapter", *session.posargs)


@nox.session(python=PYTHON, name="llama-index-0.6")
def llama_index_06(session: nox.Session) -> None:
    """The LlamaIndex adapter on llama-index-protocols-ag-ui 0.6 and ag-ui-protocol 1.x."""
    session.install(
        "-e",
        ".[llama-index,test]",
        "llama-index-protocols-ag-ui>=0.6,<0.7",
        "ag-ui-protocol>=1,<2",
        LLAMA_INDEX_MCP,
    )
    session.run("pytest", "tests/llama_index_adapter", *session.posargs)


#: The oldest and newest ag-ui-langgraph, each on both ag-ui-protocol lines (no release
#: caps ag-ui-protocol). langgraph-prebuilt 1.0.13 imports names langgraph 1.0.10 lacks.
LANGGRAPH_VERSIONS = {
    "0.0.47-ag-ui-1": ("ag-ui-langgraph==0.0.47", "langgraph==1.2.24", "ag-ui-protocol==1.0.0"),
    "0.0.47-ag-ui-0.1": ("ag-ui-langgraph==0.0.47", "langgraph==1.2.24", "ag-ui-protocol==0.1.22"),
    "0.0.40-ag-ui-1": (
        "ag-ui-langgraph==0.0.40",
        "langgraph==1.0.10",
        "langgraph-prebuilt==1.0.8",
        "ag-ui-protocol==1.0.0",
    ),
    "0.0.40-ag-ui-0.1": (
        "ag-ui-langgraph==0.0.40",
        "langgraph==1.0.10",
        "langgraph-prebuilt==1.0.8",
        "ag-ui-protocol==0.1.15",
    ),
}


@nox.session(python=PYTHON, name="tests-langgraph")
@nox.parametrize("pins", list(LANGGRAPH_VERSIONS.values()), ids=list(LANGGRAPH_VERSIONS))
def tests_langgraph(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The LangGraph adapter on each pinned set of LANGGRAPH_VERSIONS."""
    session.install("-e", ".[langgraph,test]", *pins)
    session.run("pytest", "tests/langgraph_adapter", *session.posargs)


#: Pydantic AI on both lines: pydantic-ai-slim 2.62 and older caps ag-ui-protocol below 1,
#: 2.63 and newer takes 1.x. The oldest and newest release of each line.
PYDANTIC_AI_VERSIONS = {
    "2.50-ag-ui-0.1": ("pydantic-ai-slim[ag-ui,mcp]==2.50.0", "ag-ui-protocol>=0.1.10,<0.2"),
    "2.62-ag-ui-0.1": ("pydantic-ai-slim[ag-ui,mcp]==2.62.0", "ag-ui-protocol>=0.1.10,<0.2"),
    "2.63-ag-ui-1": ("pydantic-ai-slim[ag-ui,mcp]==2.63.0", "ag-ui-protocol>=1,<2"),
    "newest-ag-ui-1": ("pydantic-ai-slim[ag-ui,mcp]>=2.63", "ag-ui-protocol>=1,<2"),
}


@nox.session(python=PYTHON, name="tests-pydantic-ai")
@nox.parametrize("pins", list(PYDANTIC_AI_VERSIONS.values()), ids=list(PYDANTIC_AI_VERSIONS))
def tests_pydantic_ai(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The Pydantic AI adapter on each pinned set of PYDANTIC_AI_VERSIONS."""
    session.install("-e", ".[pydantic-ai,test]", *pins)
    session.run("pytest", "tests/pydantic_ai_adapter", *session.posargs)


#: The oldest supported ag-ui-strands on the oldest strands-agents it takes, and the newest
#: of both (ag-ui-strands 1.x needs ag-ui-protocol 1.x).
STRANDS_VERSIONS = {
    "1.0.0": ("ag-ui-strands==1.0.0", "strands-agents==1.55.0"),
    "newest": ("ag-ui-strands>=1,<2", "strands-agents>=1.55"),
}


@nox.session(python=PYTHON, name="tests-strands")
@nox.parametrize("pins", list(STRANDS_VERSIONS.values()), ids=list(STRANDS_VERSIONS))
def tests_strands(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The Strands adapter on each pinned set of STRANDS_VERSIONS."""
    session.install("-e", ".[strands,test]", *pins)
    session.run("pytest", "tests/strands_adapter", *session.posargs)


#: agent-framework-ag-ui pins ag-ui-protocol 0.1.x (`>=0.1.19,<0.2`): its oldest release on
#: the oldest agent-framework-core it takes, and the newest. The framework's MCP tools need
#: tenacity (agent-framework-core asks for it when they connect).
AGENT_FRAMEWORK_VERSIONS = {
    "1.0": ("agent-framework-ag-ui==1.0.0", "agent-framework-core==1.11.0"),
    "newest": ("agent-framework-ag-ui>=1.0",),
}
AGENT_FRAMEWORK_DEMO_TEST = (
    "tests/demo/test_demo_cli.py::test_each_frameworks_demo_stream_passes_the_checker"
    "[agent-framework]"
)
#: The modules that import Microsoft Agent Framework: `types` ([all]) sees it as Any.
AGENT_FRAMEWORK_MODULES = (
    "moca_agui.adapters._agent_framework",
    "moca_agui.adapters._agent_framework_numbered",
    "moca_agui.adapters.agent_framework",
    "moca_agui.adapters.agent_framework_plugin",
    "moca_agui.demo.frameworks.agent_framework",
)


@nox.session(python=PYTHON, name="tests-agent-framework")
@nox.parametrize(
    "pins", list(AGENT_FRAMEWORK_VERSIONS.values()), ids=list(AGENT_FRAMEWORK_VERSIONS)
)
def tests_agent_framework(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The Agent Framework adapter and its demo, in the environment its users have ([all]
    cannot hold it); the demo's stream through the real @ag-ui/client (js/'s subscriber
    test, Node 20); mypy --strict on its modules against the framework (see `types`)."""
    session.install(
        "--config-settings", "editable_mode=strict", "-e", ".[agent-framework,test]",
        "tenacity>=9.1.4,<9.2", "mypy", *pins,
    )  # fmt: skip
    session.run("mypy", *(arg for module in AGENT_FRAMEWORK_MODULES for arg in ("-m", module)))
    session.run(
        "pytest", "tests/agent_framework_adapter", AGENT_FRAMEWORK_DEMO_TEST, *session.posargs
    )
    _subscriber_test(session, "agent-framework")


def _subscriber_test(session: nox.Session, framework: str) -> None:
    """js/'s subscriber test, the real @ag-ui/client against `framework`'s demo (Node 20)."""
    _require_node(session)
    session.chdir("js")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    session.run(
        "node", "--test", "test/subscriber.test.js",
        env={"MOCA_AGUI_DEMO_FRAMEWORKS": framework}, external=True,
    )  # fmt: skip


@nox.session(python=PYTHON, name="tests-crewai")
def tests_crewai(session: nox.Session) -> None:
    """CrewAI behind the middleware and its demo, in the environment its users have
    (ag-ui-crewai pins fastapi<0.116, google-adk in [all] needs 0.133 or newer); the demo's
    stream through the real @ag-ui/client (js/'s subscriber test, Node 20)."""
    session.install("-e", ".[crewai,demo,test]", CREWAI_TOOLS_MCP)
    session.run(
        "pytest", "tests/crewai_middleware", "tests/demo/test_demo_cli.py", "-k", "crewai",
        "-W", "ignore::DeprecationWarning", *session.posargs,
        env={"LITELLM_LOCAL_MODEL_COST_MAP": "True"},  # litellm fetches no price list
    )  # fmt: skip
    _subscriber_test(session, "crewai")


@nox.session(python=PYTHON, name="bench-agent-framework")
def bench_agent_framework(session: nox.Session) -> None:
    """Benchmarks 7 and 9 for the Agent Framework demo, in the environment its extra needs
    (ag-ui-protocol 0.1.x: `bench`'s [all] cannot hold it). `-- --quick` for short runs,
    the one option both take."""
    session.install("-e", ".[agent-framework,demo]", "tenacity>=9.1.4,<9.2")
    session.run(
        "python", "tests/benchmarks/bench_frameworks.py", "--framework", "agent-framework",
        *session.posargs,
    )  # fmt: skip
    session.run(
        "python", "tests/benchmarks/bench_instructions.py",
        "--workload", "request:agent-framework", *session.posargs,
    )  # fmt: skip


@nox.session(python=PYTHON, name="tests-agno")
def tests_agno(session: nox.Session) -> None:
    """Agno's AG-UI interface behind the ASGI middleware (Agno is no extra of moca-agui)."""
    session.install("-e", ".[test]", "agno[agui]>=3.1,<4")
    session.run("pytest", "tests/agno_middleware", *session.posargs)


#: The oldest ag-ui-adk on ag-ui-protocol 1.x (0.8.0) on the oldest google-adk it takes,
#: and the newest of both. google-adk 1.x pins mcp < 2: that set gets the test tools
#: without the demo extra (which takes mcp 1.23 and newer now; the demo Reader's MCP
#: server runs on mcp 1 too).
ADK_VERSIONS = {
    "0.8.0-google-adk-1.28.1": ("ag-ui-adk==0.8.0", "google-adk==1.28.1"),
    "newest": ("ag-ui-adk>=0.8", "google-adk>=1.28.1"),
}


@nox.session(python=PYTHON, name="tests-adk")
@nox.parametrize("pins", list(ADK_VERSIONS.values()), ids=list(ADK_VERSIONS))
def tests_adk(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The Google ADK adapter on each pinned set of ADK_VERSIONS."""
    if any(pin.startswith("google-adk==1.") for pin in pins):
        session.install("-e", ".[adk]", *pins, *_test_tools())
    else:
        session.install("-e", ".[adk,test]", *pins)
    session.run("pytest", "tests/adk_adapter", *session.posargs)


def _test_tools() -> list[str]:
    """The `test` extra without the extras it names (the demo's)."""
    return [r for r in _extra("test") if not r.startswith("moca-agui[")]


@nox.session(python=PYTHON, name="tests-langgraph-mcp")
def tests_langgraph_mcp(session: nox.Session) -> None:
    """LangGraph on the real langchain-mcp-adapters, which needs mcp 1.x, against the demo
    Reader (on mcp 1.x too) and the reference Reader's replayed answers, over MCP stdio.

    Lean: the LangGraph and demo extras, langchain-mcp-adapters and pytest; one directory.
    """
    session.install(
        "-e",
        ".[langgraph,demo]",
        "langchain-mcp-adapters>=0.3",
        "mcp<2",
        "pytest>=8",
        "pytest-asyncio>=0.24",
    )
    session.run("pytest", "tests/langgraph_mcp_adapter", *session.posargs)


#: check-jsonschema ships the GitHub workflow schema in its wheel (`--builtin-schema`):
#: the workflows are checked with no network.
CHECK_JSONSCHEMA = "check-jsonschema==0.39.0"


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff; the core's layers (pyproject.toml's import-linter contracts), read from the
    package as installed (a "strict" editable install lays it out as files); the docs site
    (`mkdocs build --strict`: a broken link or anchor, a page left out of the nav fail
    it); and the GitHub workflows against their schema."""
    session.install("ruff", "import-linter", *_extra("docs"), CHECK_JSONSCHEMA)
    session.install("--no-deps", "--config-settings", "editable_mode=strict", "-e", ".")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("lint-imports")
    site = session.create_tmp()
    session.run(
        "mkdocs", "build", "--strict", "--quiet", "--site-dir", f"{site}/site",
        env={"NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    workflows = sorted(str(path) for path in Path(".github/workflows").glob("*.yml"))
    session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)


@nox.session(python=PYTHON)
def types(session: nox.Session) -> None:
    """mypy --strict on the whole package as installed: core, adapters and demo. The
    default run checks this inside `tests`, on its environment; this is for humans."""
    _install_all(session, "-e", ".[all]", "mypy")
    _mypy(session)


@nox.session(python=PYTHON, reuse_venv=False)
def wheel(session: nox.Session) -> None:
    """The package as users get it: build the wheel and the sdist (no warning allowed),
    `twine check` them, install the wheel (not editable) with `[demo,test]` only, and run
    the demo and tests/core against it from a directory outside the checkout. Always a
    fresh environment: a package an earlier install left behind could hide a missing
    dependency."""
    session.install("build", "twine")
    dist = Path(session.create_tmp()) / "dist"
    shutil.rmtree(dist, ignore_errors=True)
    # PYTHONDONTWRITEBYTECODE makes setuptools warn that it skips byte-compiling: unset
    output = session.run(
        "python", "-m", "build", "--outdir", str(dist), silent=True,
        env={"PYTHONDONTWRITEBYTECODE": ""},
    )  # fmt: skip
    warnings = [line for line in str(output).splitlines() if "warning" in line.lower()]
    if warnings:
        session.error("python -m build warned:\n" + "\n".join(warnings))
    built = sorted(str(path) for path in dist.iterdir())
    session.run("twine", "check", "--strict", *built)
    (wheel_file,) = (path for path in built if path.endswith(".whl"))
    session.install(f"{wheel_file}[demo,test]")
    session.install("--force-reinstall", "--no-deps", wheel_file)  # this build, not a reused one
    checkout = Path.cwd()
    with tempfile.TemporaryDirectory(prefix="moca-agui-wheel-") as outside:
        session.chdir(outside)
        venv = str(Path(str(session.virtualenv.location)).resolve())
        session.run(
            "python", "-c",
            "import moca_agui, sys; where = moca_agui.__file__; "
            f"sys.exit(None if where.startswith({venv!r}) and 'site-packages' in where "
            "else f'moca_agui imported from {where}, not the installed wheel')",
        )  # fmt: skip
        stream = session.run(
            "moca-agui", "demo", "--question", "Do I need to register my hives?", silent=True
        )
        if '"name":"moca.citations"' not in str(stream):
            session.error(f"the installed demo sent no moca.citations event:\n{stream}")
        session.run(
            "pytest", "-p", "no:cacheprovider", "--rootdir", str(checkout),
            str(checkout / "tests" / "core"), *session.posargs,
        )  # fmt: skip
        session.chdir(checkout)


def _extra(name: str) -> list[str]:
    """The requirements of the extra `name`, to install without the package."""
    with open("pyproject.toml", "rb") as file:
        requirements: list[str] = tomllib.load(file)["project"]["optional-dependencies"][name]
    return requirements


@nox.session(python=PYTHON)
def js(session: nox.Session) -> None:
    """The npm package `js/`: its types (tsc) and `node --test` against the real
    @ag-ui/client and `moca-agui demo` of every framework in [all] (Node 20, npm)."""
    session.install("-e", ".[all]")
    _npm_ci(session)
    _js_tests(session)
    _oldest_client(session)


def _npm_ci(session: nox.Session) -> None:
    """The npm package's dependencies, as its lock file pins them (js/node_modules)."""
    _require_node(session)
    session.chdir("js")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    session.chdir("..")


def _require_node(session: nox.Session) -> None:
    """Stop in one line when Node or npm is missing, naming the install."""
    if not (shutil.which("node") and shutil.which("npm")):
        session.error(
            "node and npm not found: the npm package's tests need Node 20 or newer and npm "
            "(apt-get install nodejs npm, or https://nodejs.org/)"
        )


def _js_tests(session: nox.Session) -> None:
    """The npm package's types (tsc) and tests (node --test), its dependencies installed."""
    session.chdir("js")
    session.run("npm", "run", "types", external=True)
    session.run("npm", "test", external=True)
    session.chdir("..")


def _oldest_client(session: nox.Session) -> None:
    """The CitationMiddleware's tests with @ag-ui/client 0.0.59 (CopilotKit's runtime pins
    it), moca-agui installed as npm packs it."""
    session.chdir("js/test/client-0.0.59")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    npm_install = ("npm", "install", "--no-save", "--no-audit", "--no-fund", "--install-links")
    session.run(*npm_install, "../..", external=True)
    session.run("npm", "test", external=True)
    session.chdir("../../..")


@nox.session(python=PYTHON, name="js-frontends")
def js_frontends(session: nox.Session) -> None:
    """The npm package's README snippets for CopilotKit and assistant-ui, with the real
    packages in jsdom, against the ag-ui and Pydantic AI demos; then in Debian's headless
    Chromium (`.ci/run` installs it), the CopilotKit page through CopilotKit's runtime and an
    assistant-ui page, screenshots in artifacts/frontends/; moca-agui installed as npm
    packs it. CopilotKit and its runtime bring about 1,300 npm packages: about 4.5 minutes
    (3.3 before the browser tests), from a cache less."""
    session.install("-e", ".[pydantic-ai,demo]")
    _require_node(session)
    session.env["SCARF_ANALYTICS"] = "false"  # CopilotKit's runtime's install script reports
    session.chdir("js/test/frontends")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    npm_install = ("npm", "install", "--no-save", "--no-audit", "--no-fund", "--install-links")
    session.run(*npm_install, "../..", external=True)
    session.run("npm", "test", external=True)


@nox.session(python=PYTHON, name="js-agents")
def js_agents(session: nox.Session) -> None:
    """moca-agui/middleware on real TypeScript agents, mock models, the demo's Reader over
    MCP stdio: Mastra through @ag-ui/mastra, CopilotKit's runtime (its built-in agent,
    HttpAgents to the Python demo with and without moca-agui), a LangGraph.js graph on
    LangGraph's local server through @ag-ui/langgraph; moca-agui installed as npm packs it.
    About 650 npm packages: about 2.5 minutes from a fresh environment and an empty npm
    cache, 30 seconds of it the tests."""
    session.install("-e", ".[demo]")
    _require_node(session)
    session.chdir("js/test/agents")
    session.run("npm", "ci", "--no-audit", "--no-fund", external=True)
    npm_install = ("npm", "install", "--no-save", "--no-audit", "--no-fund", "--install-links")
    session.run(*npm_install, "../..", external=True)
    session.run("npm", "test", external=True)


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """The benchmarks of BENCHMARKS.md, ratios measured side by side (not tests).

    `nox -s bench -- --quick` for a short run; the plot goes beside BENCHMARKS.md.
    Benchmarks 7 and 9 for Agent Framework: `nox -s bench-agent-framework`.
    """
    session.install("-e", ".[all,test]", "matplotlib", "memray")  # test: selenium
    _npm_ci(session)  # benchmark 13 renders <MocaSources> with the npm package
    for name in (
        "stream", "http", "scaling", "memory", "event_size", "capture", "frameworks", "asgi",
        "instructions", "latency", "thread", "big_event", "render", "hostile", "request_cpu",
    ):  # fmt: skip
        session.run("python", f"tests/benchmarks/bench_{name}.py", *session.posargs)


#: ag2[ag-ui]'s oldest supported release (1.2.0) and the newest below 2; `tests` runs the
#: AG2 tests on the newest too, beside every other framework.
AG2_VERSIONS = {"1.2.0": ("ag2[ag-ui]==1.2.0",), "newest": ("ag2[ag-ui]>=1.2,<2",)}


@nox.session(python=PYTHON, name="tests-ag2")
@nox.parametrize("pins", list(AG2_VERSIONS.values()), ids=list(AG2_VERSIONS))
def tests_ag2(session: nox.Session, pins: tuple[str, ...]) -> None:
    """AG2's `AGUIStream`, instrumented and behind the bare middleware, on each pinned set."""
    session.install("-e", ".[ag2,test]", *pins)
    session.run("pytest", "tests/ag2_adapter", *session.posargs)


#: bedrock-agentcore's first release with AG-UI support found (1.6.0; not bisected below)
#: and the newest; AgentCore serves the Strands agent of the tests.
AGENTCORE_VERSIONS = {
    "1.6.0": ("bedrock-agentcore[ag-ui]==1.6.0",),
    "newest": ("bedrock-agentcore[ag-ui]>=1.6",),
}


@nox.session(python=PYTHON, name="tests-agentcore")
@nox.parametrize("pins", list(AGENTCORE_VERSIONS.values()), ids=list(AGENTCORE_VERSIONS))
def tests_agentcore(session: nox.Session, pins: tuple[str, ...]) -> None:
    """AWS Bedrock AgentCore (SSE and WebSocket) on each pinned set of AGENTCORE_VERSIONS."""
    session.install("-e", ".[agentcore,test]", *pins)
    session.run("pytest", "tests/agentcore_adapter", *session.posargs)


#: ag-ui-claude-sdk's oldest 0.2 on the oldest claude-agent-sdk it takes, and the newest.
CLAUDE_SDK_VERSIONS = {
    "0.2.0": ("ag-ui-claude-sdk==0.2.0", "claude-agent-sdk==0.2.166"),
    "newest": ("ag-ui-claude-sdk>=0.2", "claude-agent-sdk>=0.2.166"),
}


@nox.session(python=PYTHON, name="tests-claude-sdk")
@nox.parametrize("pins", list(CLAUDE_SDK_VERSIONS.values()), ids=list(CLAUDE_SDK_VERSIONS))
def tests_claude_sdk(session: nox.Session, pins: tuple[str, ...]) -> None:
    """The Claude Agent SDK behind the middleware: its own session, since claude-agent-sdk
    ships the Claude Code CLI (a 400 MB wheel) that [all] does not carry; the demo's
    stream through the real @ag-ui/client (js/'s subscriber test, Node 20)."""
    session.install("-e", ".[claude-sdk,test]", *pins)
    session.run("pytest", "tests/claude_sdk_middleware", *session.posargs)
    _subscriber_test(session, "claude-sdk")
