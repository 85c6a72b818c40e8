// A page's DOM and its style are HeadlessPage's public vocabulary (`Page.document`, `Viewport`,
// `HTMLDocument.select`), so importing HeadlessPage brings them; the offline copy sits above this
// module and is imported on its own.
@_exported import HTMLDOM
@_exported import CSSStyle
