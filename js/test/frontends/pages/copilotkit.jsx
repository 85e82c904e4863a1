// The README's CopilotKit snippet, as written, on a page of its own.
import { createRoot } from "react-dom/client";

import { App } from "copilotkit-snippet";

createRoot(document.getElementById("root")).render(<App />);
