// elk-api's CommonJS entry and the worker script (loaded by URL, as a classic worker).
declare module 'elkjs/lib/elk-api.js' {
  import ELK from 'elkjs/lib/elk-api'
  export default ELK
}
