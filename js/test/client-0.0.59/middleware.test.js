// The CitationMiddleware with @ag-ui/client 0.0.59, the version CopilotKit's runtime 1.74
// pins: moca-agui is installed here as npm packs it (`npm install --no-save --install-links
// ../..`), so it imports this folder's @ag-ui/client and rxjs.
import * as client from "@ag-ui/client";
import { MocaCitations } from "moca-agui";
import { CitationMiddleware, instrument } from "moca-agui/middleware";
import { middlewareSuite } from "../middleware-suite.js";

middlewareSuite({ client, CitationMiddleware, instrument, MocaCitations, version: "@ag-ui/client 0.0.59" });
