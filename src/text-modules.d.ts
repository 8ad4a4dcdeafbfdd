// Files bundled as Text modules (wrangler.toml `rules`): their default export is the file's content.
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
