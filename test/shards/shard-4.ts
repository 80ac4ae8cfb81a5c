import { runShard } from '../helpers/shard.js'

await runShard(4, 4)
